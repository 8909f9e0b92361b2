/**
 * Read model of name reservations (the `username-`, `email-`, `groupname-` and `partnername-`
 * streams): one document per name reserved right now, with its owner, for the operator's
 * `list-reservations`. A released name's document is removed. Whether a reservation is live, in
 * flight or stuck is decided when it is read (reservation-status.ts): it depends on other read
 * models, which move on their own.
 */
import { type ReservationKind, RESERVATION_KINDS } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { NameReserved, Projection } from '@burrow/eventsourcing';

export interface ReservationDoc {
  /** the reservation stream */
  _id: string;
  kind: ReservationKind;
  /** the key as the stream has it, decoded: trimmed, lower-cased */
  name: string;
  /** groupname only */
  partnerId?: string;
  owner: string;
  /** when it was reserved (ms since the epoch) */
  reservedAt: number;
  [key: string]: unknown;
}

export const reservationsCollection = (docs: DocumentStore) => docs.collection<ReservationDoc>('reservations');

export const RESERVATION_PREFIXES = RESERVATION_KINDS.map((kind) => `${kind}-`);

/** `groupname-<partner uuid>-<name>`: the partner id is a UUID, so its dashes are not ambiguous. */
const GROUPNAME_KEY = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(.+)$/i;

function decode(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** What a reservation stream's name says: its kind, the name and (groupname) the partner. */
export function reservationOfStream(stream: string): Pick<ReservationDoc, 'kind' | 'name' | 'partnerId'> | null {
  const kind = RESERVATION_KINDS.find((k) => stream.startsWith(`${k}-`));
  if (!kind) return null;
  const key = stream.slice(kind.length + 1);
  if (kind !== 'groupname') return { kind, name: decode(key) };
  const match = GROUPNAME_KEY.exec(key);
  return match ? { kind, name: decode(match[2]), partnerId: match[1] } : { kind, name: decode(key) };
}

export const reservationsProjection = (): Projection => ({
  name: 'reservations',
  prefixes: RESERVATION_PREFIXES,
  async init(docs) {
    await reservationsCollection(docs).ensureIndex({ kind: 1 });
  },
  async apply(event, docs) {
    const reservations = reservationsCollection(docs);
    if (event.type === 'NameReleased') {
      await reservations.delete(event.stream);
      return;
    }
    if (event.type !== 'NameReserved') return;
    const parsed = reservationOfStream(event.stream);
    if (!parsed) return;
    const { owner } = event.data as NameReserved['data'];
    await reservations.upsert({ _id: event.stream, ...parsed, owner, reservedAt: event.recordedAt });
  },
});
