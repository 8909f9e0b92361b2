/** Small helpers for e2e tests: supertest agents with partner credentials. */
import supertest from 'supertest';
import type { TestTarget } from './standalone.js';

export function partnerApi(target: TestTarget, url = target.url, credentials = target.partner) {
  const agent = supertest(url);
  const auth = (r: supertest.Test) => r.auth(credentials.username, credentials.password);
  return {
    get: (path: string) => auth(agent.get(path)),
    post: (path: string, body?: unknown, contentType = 'text/javascript') => {
      const r = auth(agent.post(path)).set('Content-Type', contentType);
      return body === undefined ? r : r.send(JSON.stringify(body));
    },
    delete: (path: string) => auth(agent.delete(path)),
    raw: agent,
  };
}

export type PartnerApi = ReturnType<typeof partnerApi>;

/** Creates a partner with the operator subject (what the admin CLI does) and returns its API. */
export const uniqueName = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

import { type CreatePartnerRequest, type PartnerInfo, Subjects } from '@burrow/contracts';

/** A second (third, ...) partner, created through the operator subject; returns its API. */
export async function createPartner(target: TestTarget, overrides: Partial<CreatePartnerRequest> = {}) {
  const credentials = {
    username: overrides.username ?? uniqueName('p'),
    password: overrides.password ?? 'other-password-1',
  };
  const info = await target.operator.call<PartnerInfo>(Subjects.accounts.createPartner, {
    company_name: 'Other Co',
    bytes_available: null,
    ...overrides,
    ...credentials,
  });
  return { info, credentials, api: partnerApi(target, target.url, credentials) };
}
