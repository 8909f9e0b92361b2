/**
 * The bound on every operation of the MongoDB adapter (mongo.ts, mongo-collection.ts): a timer each
 * operation is raced against, so none waits for ever on a wedged driver.
 */

/**
 * No operation waits for ever. A database that accepts connections but does not answer, or a
 * connection the server dropped just as a command was written to it, can leave the mongodb driver
 * (7.9) waiting on an operation with no end: seen in the read-model outage e2e test, an `update`
 * of a read-model commit sent on a connection to a FerretDB killed that very millisecond never
 * settled, and the storage catalog's read models stopped for good. The driver's own bound
 * (`timeoutMS`) has no effect in 7.x and `socketTimeoutMS` does not cover a socket already closed,
 * so each operation is raced against a timer here: past it, it fails as unavailable
 * (DocumentStoreTimeoutError, a 503 at the service boundary) and the caller's retry takes another
 * connection. The operation left behind is not cancelled; see docs/decisions.md.
 */
export const OPERATION_TIMEOUT_MS = 10_000;

/** An operation of the read-model database did not settle in time (the database is unavailable). */
export class DocumentStoreTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`the read-model database did not answer ${what} within ${ms} ms`);
    this.name = 'DocumentStoreTimeoutError';
  }
}

/**
 * `op`, or a DocumentStoreTimeoutError once `ms` have passed without it settling (0: no limit).
 * The operation itself is left to settle on its own, its outcome ignored.
 */
export function bounded<T>(what: string, op: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return op;
  let timer: NodeJS.Timeout;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      op.catch(() => undefined);
      reject(new DocumentStoreTimeoutError(what, ms));
    }, ms);
  });
  return Promise.race([op, expired]).finally(() => clearTimeout(timer));
}
/** Clearing every collection and building an index can take minutes on a large database; not for ever. */
export const LONG_OPERATION_MS = 10 * 60_000;
