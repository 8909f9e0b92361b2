import type { HealthReply } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProjectionRunner } from './projection-runner.js';

/** A service's answer to the gateway's readiness check: its stores answer, its read models are live. */
export async function serviceHealth(service: string, store: EventStore, documents: DocumentStore, runner: ProjectionRunner): Promise<HealthReply> {
  const position = runner.currentPosition;
  for (const [what, ping] of [['event store', () => store.ping()], ['read-model store', () => documents.ping()]] as const) {
    try {
      await ping();
    } catch (error) {
      return { service, ok: false, position, reason: `${what}: ${(error as Error).message}` };
    }
  }
  const health = await runner.health();
  return { service, ok: health.ok, position: health.position, ...(health.reason ? { reason: health.reason } : {}) };
}
