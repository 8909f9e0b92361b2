/**
 * Read model of what a user's logins are checked against: the current password hash and the
 * revision of the user's last `UserDisabled` (a session made before it ends). Logins and session
 * checks read it, not the event store, so they keep working while the event store is down
 * (issue 39): reads need only the read models and the blobs.
 *
 * A change is in force at once on every replica, as when the stream itself was read: the write
 * that changes a password (or disables, or deletes the user) answers only once the service's read
 * models include it (read-your-writes), and every replica of the service reads the same read-model
 * database. Kept apart from the `users` collection, whose documents become API records: a hash
 * never rides along with one.
 */
import { StreamPrefixes, type UserCreated, type UserPasswordChanged } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { RecordedEvent } from '@burrow/event-store';
import type { Projection } from '@burrow/eventsourcing';

export interface UserCredentialDoc {
  _id: string;
  /** the current scrypt hash; null for a user without a password */
  passwordHash: string | null;
  /** the stream revision of the latest `UserDisabled`, if any */
  disabledAt?: number;
  [key: string]: unknown;
}

export const userCredentialsCollection = (docs: DocumentStore) =>
  docs.collection<UserCredentialDoc>('user_credentials');

async function apply(event: RecordedEvent, docs: DocumentStore): Promise<void> {
  const credentials = userCredentialsCollection(docs);
  const userId = event.stream.slice(StreamPrefixes.user.length);
  switch (event.type) {
    case 'UserCreated':
      await credentials.upsert({ _id: userId, passwordHash: (event.data as UserCreated['data']).passwordHash || null });
      return;
    case 'UserPasswordChanged':
    case 'UserDisabled': {
      const doc = await credentials.get(userId);
      if (!doc) return;
      if (event.type === 'UserDisabled') doc.disabledAt = event.revision;
      else doc.passwordHash = (event.data as UserPasswordChanged['data']).passwordHash || null;
      await credentials.upsert(doc);
      return;
    }
    case 'UserDeleted':
      await credentials.delete(userId);
      return;
    default:
  }
}

export const userCredentialsProjection = (): Projection => ({
  name: 'user-credentials',
  prefixes: [StreamPrefixes.user],
  apply,
});
