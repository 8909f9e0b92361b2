/**
 * Boots one service as a Nest microservice on the configured transport, with the error filter
 * that turns every thrown error into the wire error shape.
 */
import { dependencyUnavailable, DomainError, unavailableDependencyOf, type WireError } from '@burrow/contracts';
import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  type DynamicModule,
  type INestMicroservice,
  type NestInterceptor,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { throwError } from 'rxjs';
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

@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<WireError> {
    if (exception instanceof DomainError) return throwError(() => exception.toWire());
    // a full disk is a 507 with a reason (nothing was written: every store writes atomically);
    // the operator must hear of it at once
    if (isDiskFull(exception)) {
      this.log.error(
        { err: { code: (exception as { code?: unknown }).code, message: (exception as Error).message } },
        'disk full: a write was refused',
      );
      return throwError(() => diskFull().toWire());
    }
    // a database outage is the service's to report as 503 (retry), not a 500: nothing is wrong with the request
    const dependency = unavailableDependency(exception);
    if (dependency) {
      this.log.warn(
        { dependency, err: { name: (exception as Error).name, message: (exception as Error).message } },
        'a dependency is unavailable',
      );
      return throwError(() => dependencyUnavailable(dependency).toWire());
    }
    this.log.error(
      { err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception },
      'unhandled error',
    );
    return throwError(() => ({ burrowError: true, status: 500, reason: 'internal error' }) as WireError);
  }
}

export async function startService(
  name: string,
  module: DynamicModule,
  infra: Infrastructure,
  /** run before every bus handler of the service (a refusal is answered as a thrown error) */
  options: { guards?: CanActivate[]; interceptors?: NestInterceptor[] } = {},
): Promise<INestMicroservice> {
  const log = infra.logger(name);
  const app = await NestFactory.createMicroservice(module, {
    strategy: infra.serverStrategy(name),
    logger: false,
  });
  app.useGlobalFilters(new WireErrorFilter(log));
  if (options.guards?.length) app.useGlobalGuards(...options.guards);
  if (options.interceptors?.length) app.useGlobalInterceptors(...options.interceptors);
  await app.listen();
  log.info({ mode: infra.mode }, `${name} service listening`);
  return app;
}
