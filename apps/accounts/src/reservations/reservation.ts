/**
 * Uniqueness without trusting a read model: a name is taken by appending `NameReserved` to its own
 * reservation stream with the expected revision read just before, so of two concurrent claims
 * exactly one wins. Releasing appends `NameReleased`; the name can then be reserved again.
 */
import { conflict } from '@burrow/contracts';
import { type EventStore, WrongExpectedRevisionError } from '@burrow/event-store';

export async function reserveName(
  store: EventStore,
  stream: string,
  owner: string,
  conflictField: string,
): Promise<void> {
  for (let attempt = 0; attempt < 25; attempt++) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (last?.type === 'NameReserved') {
      if (last.data.owner === owner) return;
      throw conflict(`${conflictField} already in use`, [conflictField]);
    }
    try {
      await store.append(stream, [{ type: 'NameReserved', data: { owner } }], last ? last.revision : 'no_stream');
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw conflict(`${conflictField} already in use`, [conflictField]);
}

export async function releaseName(store: EventStore, stream: string, owner: string): Promise<void> {
  for (let attempt = 0; attempt < 25; attempt++) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last || last.type !== 'NameReserved' || last.data.owner !== owner) return;
    try {
      await store.append(stream, [{ type: 'NameReleased', data: { owner } }], last.revision);
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}

/** Case-insensitive key for a name, safe inside a stream name. */
export const nameKey = (name: string) => encodeURIComponent(name.trim().toLowerCase());
