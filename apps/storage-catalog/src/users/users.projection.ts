/**
 * The storage catalog's own view of users (from the accounts service's `user-` streams): who they
 * are, which partner they belong to, and the names they log in with. Enough to resolve a partner's
 * or a login's reference to a user without asking accounts.
 */
import { notFound, StreamPrefixes, type UserCreated } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface StorageUserDoc {
  _id: string;
  partnerId: string;
  username: string;
  usernameKey: string;
  emailKey: string;
  [key: string]: unknown;
}

export const storageUsersCollection = (docs: DocumentStore) => docs.collection<StorageUserDoc>('users');

export const storageUsersProjection = (docs: DocumentStore): Projection => ({
  name: 'users',
  prefixes: [StreamPrefixes.user],
  async init() {
    await storageUsersCollection(docs).ensureIndex({ partnerId: 1, usernameKey: 1 });
    await storageUsersCollection(docs).ensureIndex({ partnerId: 1, emailKey: 1 });
  },
  async apply(event) {
    const users = storageUsersCollection(docs);
    const userId = event.stream.slice(StreamPrefixes.user.length);
    if (event.type === 'UserCreated') {
      const d = event.data as unknown as UserCreated['data'];
      await users.upsert({ _id: userId, partnerId: d.partnerId, username: d.username, usernameKey: d.username.toLowerCase(), emailKey: d.email.toLowerCase() });
      return;
    }
    if (event.type === 'UserEmailChanged') {
      const user = await users.get(userId);
      if (user) await users.upsert({ ...user, emailKey: (event.data.email as string).toLowerCase() });
      return;
    }
    if (event.type === 'UserDeleted') await users.delete(userId);
  },
});

/** A user of this partner by username (any case) or email; 404 otherwise, other partners' included. */
export async function findPartnerUser(docs: DocumentStore, partnerId: string, user: string): Promise<StorageUserDoc> {
  const users = storageUsersCollection(docs);
  const key = user.toLowerCase();
  const doc = (await users.findOne({ partnerId, usernameKey: key })) ?? (user.includes('@') ? await users.findOne({ partnerId, emailKey: key }) : null);
  if (!doc) throw notFound(`no user ${user}`);
  return doc;
}
