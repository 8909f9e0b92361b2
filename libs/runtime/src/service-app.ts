/**
 * Boots one service as a Nest microservice on the configured transport: its handlers called directly
 * by the transport (the lean bus), every thrown error turned into the wire error shape.
 */
import { dependencyUnavailable, DomainError, unavailableDependencyOf, type WireError } from '@burrow/contracts';
import {
  type ArgumentsHost,
  Catch,
  type DynamicModule,
  type INestMicroservice,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { throwError } from 'rxjs';
import { hasDirectDispatch } from '@burrow/transport';
import { type BusHook, directHandlers } from './direct-handlers.js';
import { diskFull, isDiskFull } from './disk-space.js';
import type { Infrastructure } from './infrastructure.js';
import type { Logger } from './logger.js';

/** MongoDB driver errors that mean "the database cannot be reached right now", not "this request is wrong". */
const READ_MODEL_UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoOperationTimeoutError',
  'DocumentStoreTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);
/** connection failures of a server the adapters did not name (the generic answer: "a database") */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01',
  '57P03',
]);

/**
 * The dependency that does not answer, when `error` (or one of its causes) says a server cannot be
 * reached: the request may succeed when retried (503), nothing is wrong with it. Adapters name
 * theirs (DependencyUnavailableError); MongoDB's errors are the read models'; else null.
 */
export function unavailableDependency(error: unknown): string | null {
  const named = unavailableDependencyOf(error);
  if (named) return named;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (READ_MODEL_UNAVAILABLE.has(e.name)) return 'read-model database';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return 'database';
  }
  return null;
}

/** An error (or its cause) from a store that does not answer: the request may succeed when retried. */
export const isStoreUnavailable = (error: unknown): boolean => unavailableDependency(error) !== null;

/**
 * What the reply carries for an error thrown by a handler: a domain error as it is, a full disk as
 * 507, an unavailable dependency as 503 (retry), anything else as 500 with nothing of its internals.
 */
export function toWireError(exception: unknown, log: Logger): WireError {
  if (exception instanceof DomainError) return exception.toWire();
  // a full disk is a 507 with a reason (nothing was written: every store writes atomically);
  // the operator must hear of it at once
  if (isDiskFull(exception)) {
    log.error(
      { err: { code: (exception as { code?: unknown }).code, message: (exception as Error).message } },
      'disk full: a write was refused',
    );
    return diskFull().toWire();
  }
  // a database outage is the service's to report as 503 (retry), not a 500: nothing is wrong with the request
  const dependency = unavailableDependency(exception);
  if (dependency) {
    log.warn(
      { dependency, err: { name: (exception as Error).name, message: (exception as Error).message } },
      'a dependency is unavailable',
    );
    return dependencyUnavailable(dependency).toWire();
  }
  log.error(
    { err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception },
    'unhandled error',
  );
  return { burrowError: true, status: 500, reason: 'internal error' };
}

/** The same mapping for what still goes through Nest's pipeline (none of the services' handlers does). */
@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<WireError> {
    const wire = toWireError(exception, this.log);
    return throwError(() => wire);
  }
}

/**
 * Starts the service on the configured transport. Its request handlers are called directly by the
 * transport (the lean bus: direct-handlers.ts), inside `hooks`, outermost first (the accounts
 * service's partner credentials, then its session forgets).
 */
export async function startService(
  name: string,
  module: DynamicModule,
  infra: Infrastructure,
  options: { hooks?: BusHook[] } = {},
): Promise<INestMicroservice> {
  const log = infra.logger(name);
  const strategy = infra.serverStrategy(name);
  const app = await NestFactory.createMicroservice(module, { strategy, logger: false });
  app.useGlobalFilters(new WireErrorFilter(log));
  await app.init();
  if (hasDirectDispatch(strategy))
    strategy.useDirectHandlers(
      directHandlers(app, module.controllers ?? [], options.hooks ?? [], (error) => toWireError(error, log)),
    );
  await app.listen();
  log.info({ mode: infra.mode }, `${name} service listening`);
  return app;
}
