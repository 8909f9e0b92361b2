import type { HealthReply } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProjectionRunner } from './projection-runner.js';

/**
 * A service's answer to the gateway's readiness check: its read models answer and are live, and
 * every other store its requests need (`stores`: the login throttle's key-value buckets) answers.
 * An event store that does not answer leaves it ok but `degraded`: reads go on from the read
 * models, which hold everything appended before (nothing can be appended meanwhile); writes answer
 * 503 naming it.
 */
export async function serviceHealth(
  service: string,
  store: EventStore,
  documents: DocumentStore,
  runner: ProjectionRunner,
  stores: Record<string, () => Promise<void>> = {},
): Promise<HealthReply> {
  const position = runner.currentPosition;
  for (const [what, ping] of [['read-model store', () => documents.ping()], ...Object.entries(stores)] as const) {
    try {
      await ping();
    } catch (error) {
      return { service, ok: false, position, reason: `${what}: ${(error as Error).message}` };
    }
  }
  try {
    await store.ping();
  } catch (error) {
    return {
      service,
      ok: true,
      position,
      degraded: `event store: ${(error as Error).message}; writes answer 503 until it is back, reads go on`,
    };
  }
  const health = await runner.health();
  return { service, ok: health.ok, position: health.position, ...(health.reason ? { reason: health.reason } : {}) };
}
