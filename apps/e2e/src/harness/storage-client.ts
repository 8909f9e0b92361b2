/**
 * A supertest agent for the storage interface as a backup client uses it: HTTP Basic as the user,
 * URLs under `/storage/<b32 username>/`. The base32 here is the gateway's (RFC 4648, upper case,
 * no padding), written again because the suite drives the system from outside.
 */
import supertest from 'supertest';
import type { TestTarget } from './standalone.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function b32(text: string): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

export function storageApi(target: TestTarget, username: string, password: string, url = target.url) {
  const agent = supertest(url);
  const root = `/storage/${b32(username)}`;
  const auth = (r: supertest.Test) => r.auth(username, password);
  return {
    root,
    /** the agent itself, for requests the helpers below do not make (authenticate them with .auth) */
    agent,
    /** registers (or logs in) a device */
    putDevice: (device: string, body: object = { sysplatform: 'linux', client_revision: 100 }) =>
      auth(agent.put(`${root}/${encodeURIComponent(device)}/`))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body)),
    /** a new version of a file: `path` is `/`-separated within the device */
    putFile: (device: string, path: string, content: Buffer | string) =>
      auth(agent.put(`${root}/${encodeURIComponent(device)}/${path.split('/').map(encodeURIComponent).join('/')}`))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from(content)),
    deleteDevice: (device: string) => auth(agent.delete(`${root}/${encodeURIComponent(device)}/`)),
    deletePath: (device: string, path: string) =>
      auth(agent.delete(`${root}/${encodeURIComponent(device)}/${path.split('/').map(encodeURIComponent).join('/')}`)),
    /** the user's share list */
    listShares: () => auth(agent.get(`${root}/shares`)),
    /** creates a share room (a JSON body, sent as the spec's text/javascript unless told) */
    createShare: (body: unknown, contentType = 'text/javascript') =>
      auth(agent.post(`${root}/shares`))
        .set('Content-Type', contentType)
        .send(JSON.stringify(body)),
    updateShare: (roomKey: string, body: unknown) =>
      auth(agent.post(`${root}/shares?room_key=${encodeURIComponent(roomKey)}`))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body)),
    deleteShare: (roomKey: string) => auth(agent.delete(`${root}/shares?room_key=${encodeURIComponent(roomKey)}`)),
  };
}

export type StorageApi = ReturnType<typeof storageApi>;
