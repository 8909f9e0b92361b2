/**
 * Share rooms for end-to-end scenarios, made as a user makes them: through the storage interface
 * (devices and files uploaded, then `POST /storage/<b32>/shares`). For any scenario that needs a
 * room to read (the public share routes, the web pages).
 */
import assert from 'node:assert/strict';
import type { PartnerApi } from '../harness/client.js';
import type { TestTarget } from '../harness/standalone.js';
import { type StorageApi, storageApi } from '../harness/storage-client.js';
import { createUser, unique } from './accounts-fixtures.js';

/** A room as the storage interface returns it to its owner. */
export interface ShareRoomReply {
  url: string;
  room_key: string;
  room_name: string;
  room_description: string;
  dirs: string[];
  enabled: boolean;
  password_required?: boolean;
  /** unix seconds, or null: never */
  expires?: number | null;
  number_of_files: number;
  number_of_folders: number;
  creation_time: number;
  update_time: number;
}

export interface ShareRoomInput {
  room_key?: string;
  room_name?: string;
  room_description?: string;
  /** `<device>/<folder path>/` entries */
  dirs: string[];
  /** when the room stops working (unix seconds, an ISO date or date-time, or never) */
  expires?: number | string | null;
}

/**
 * The room's own address (`/share/<b32>/<key>/`, where its JSON and pages are served) from its
 * `url`, the link people are handed (`/browse/share/<b32>/<key>`, which redirects there).
 */
export const roomAddress = (url: string) =>
  `${new URL(url, 'http://any').pathname.replace(/^\/browse\/share\//, '/share/')}/`;

/** Creates a room as the user; asserts the 201 and returns the room. */
export async function createShareRoom(storage: StorageApi, room: ShareRoomInput): Promise<ShareRoomReply> {
  const res = await storage.createShare({ room_name: 'Shared', ...room });
  assert.equal(res.status, 201, `create share room: ${res.status} ${res.text}`);
  return res.body as ShareRoomReply;
}

export interface SharedUser {
  username: string;
  password: string;
  storage: StorageApi;
  room: ShareRoomReply;
}

/**
 * A new user of the partner with one device holding `files` (path -> content) and a room sharing
 * `dirs` (default: the whole device). The room's `url` is its link; `roomAddress` its address.
 */
export async function userWithShareRoom(
  target: TestTarget,
  api: PartnerApi,
  options: { device?: string; files?: Record<string, string | Buffer>; room?: Partial<ShareRoomInput> } = {},
): Promise<SharedUser> {
  const device = options.device ?? 'laptop';
  const files = options.files ?? { 'Documents/hello.txt': 'hello world' };
  const username = unique('share');
  const password = 'user-password-1';
  await createUser(api, { username, password });
  const storage = storageApi(target, username, password);
  await storage.putDevice(device).expect(200);
  for (const [path, content] of Object.entries(files)) await storage.putFile(device, path, content).expect(201);
  const room = await createShareRoom(storage, { dirs: [`${device}/`], ...options.room });
  return { username, password, storage, room };
}
