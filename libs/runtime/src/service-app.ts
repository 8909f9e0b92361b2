/**
 * Boots one service as a Nest microservice on the configured transport, with the error filter
 * that turns every thrown error into the wire error shape.
 */
import { DomainError, type WireError } from '@burrow/contracts';
import { type ArgumentsHost, Catch, type DynamicModule, type INestMicroservice, type RpcExceptionFilter } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { throwError } from 'rxjs';
import type { Infrastructure } from './infrastructure.js';
import type { Logger } from './logger.js';

@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<WireError> {
    if (exception instanceof DomainError) return throwError(() => exception.toWire());
    this.log.error({ err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception }, 'unhandled error');
    return throwError(() => ({ burrowError: true, status: 500, reason: 'internal error' }) as WireError);
  }
}

export async function startService(
  name: string,
  module: DynamicModule,
  infra: Infrastructure,
): Promise<INestMicroservice> {
  const log = infra.logger(name);
  const app = await NestFactory.createMicroservice(module, {
    strategy: infra.serverStrategy(name),
    logger: false,
  });
  app.useGlobalFilters(new WireErrorFilter(log));
  await app.listen();
  log.info({ mode: infra.mode }, `${name} service listening`);
  return app;
}
