/** A new user of the test partner with one registered device, as most storage scenarios start. */
import { partnerApi } from '../harness/client.js';
import { basicAuth } from '../harness/raw-http.js';
import type { TestTarget } from '../harness/standalone.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser, unique } from './accounts-fixtures.js';

export async function userWithDevice(target: TestTarget, prefix: string, password: string, device = 'laptop') {
  const username = unique(prefix);
  await createUser(partnerApi(target), { username, password });
  const storage = storageApi(target, username, password);
  await storage.putDevice(device).expect(200);
  return { username, storage, auth: basicAuth(username, password) };
}
