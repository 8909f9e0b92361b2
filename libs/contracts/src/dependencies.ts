/**
 * The servers Burrow depends on, and what a request answers when one of them does not answer: a
 * 503 naming it, with `Retry-After`, never a 500 (nothing is wrong with the request). Adapters
 * throw `DependencyUnavailableError` for their driver's connection failures (the PostgreSQL event
 * store, the MinIO blob store); the error filters turn it, and the drivers' own connection errors
 * they recognise (MongoDB's), into `dependencyUnavailable(...)`.
 */
import { DomainError } from './errors.js';

/** What an operator calls each dependency (the reason and the `dependency` field of the 503 say it). */
export type Dependency = 'event store' | 'read-model database' | 'blob store' | 'key-value store' | 'bus';

/** The Retry-After of a 503: outages seen on the production stack healed in 2-9 s. */
export const RETRY_AFTER_SECONDS = 5;

export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    cause: unknown,
  ) {
    super(`the ${dependency} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DependencyUnavailableError';
  }
}

/** The 503 a request answers while `dependency` does not answer. */
export const dependencyUnavailable = (dependency: Dependency | string) =>
  new DomainError(503, {
    reason: `the ${dependency} is unavailable; retry shortly`,
    dependency,
    retry_after: RETRY_AFTER_SECONDS,
  });

/** The dependency named by `error` or one of its causes (`DependencyUnavailableError`), else null. */
export function unavailableDependencyOf(error: unknown, depth = 0): Dependency | null {
  if (!(error instanceof Error) || depth > 4) return null;
  if (error instanceof DependencyUnavailableError) return error.dependency;
  return unavailableDependencyOf(error.cause, depth + 1);
}
