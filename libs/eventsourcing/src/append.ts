/**
 * The one path by which events are appended: it stamps every event's metadata with the schema
 * version (and, for multi-step writes, the process that wrote it), so no caller forgets to.
 */
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '@burrow/event-store';

/** Version of the event payload shapes; bump it with an upcaster when a payload changes. */
export const SCHEMA_VERSION = 1;

export interface DomainEvent {
  type: string;
  data: object;
}

export interface AppendMetadata {
  /** the multi-step write (WriteProcess) this append belongs to */
  processId?: string;
  /** a group plan change whose members follow after the reply (group-processes.ts) */
  membersFollow?: boolean;
}

export function appendEvents(
  store: EventStore,
  stream: string,
  events: readonly DomainEvent[],
  expected: ExpectedRevision,
  metadata: AppendMetadata = {},
): Promise<AppendResult> {
  return store.append(stream, stampEvents(events, metadata), expected);
}

/** The events as the store takes them, their metadata stamped (for `appendAtomically`'s writes). */
export function stampEvents(events: readonly DomainEvent[], metadata: AppendMetadata = {}): NewEvent[] {
  return events.map((e) => ({
    type: e.type,
    data: e.data as Record<string, unknown>,
    metadata: { schemaVersion: SCHEMA_VERSION, ...metadata },
  }));
}
