/**
 * Every error leaves the gateway as JSON `{"reason", ...}` with the right status: domain errors as
 * the services raised them, a full disk as 507, a dependency that does not answer (the blob store
 * the gateway reads and writes itself) as 503 naming it, framework errors (unknown route, bad
 * method) as 404/405, anything unexpected as a logged 500 that reveals nothing. Every 503 carries
 * Retry-After.
 */
import { dependencyUnavailable, DomainError, RETRY_AFTER_SECONDS } from '@burrow/contracts';
import { diskFull, isDiskFull, type Logger, unavailableDependency } from '@burrow/runtime';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { Response } from 'express';

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    this.reply(exception, host.switchToHttp().getResponse<Response>());
  }

  /** What `catch` writes, for a request Nest does not route (a fast route). */
  reply(exception: unknown, res: Response): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const dependency = exception instanceof DomainError ? null : unavailableDependency(exception);
    if (dependency) {
      this.log.warn(
        { dependency, err: { name: (exception as Error).name, message: (exception as Error).message } },
        'a dependency is unavailable',
      );
      exception = dependencyUnavailable(dependency);
    }
    if (exception instanceof DomainError) {
      // a 5xx is the system's fault (a missing blob, say): the operator must hear of it
      if (exception.status >= 500 && !dependency)
        this.log.error({ status: exception.status, err: { message: exception.message } }, exception.body.reason);
      if (exception.status === 401 && !res.getHeader('WWW-Authenticate'))
        res.setHeader('WWW-Authenticate', 'Basic realm="burrow"');
      if (exception.status === 429 && exception.body.retry_after)
        res.setHeader('Retry-After', String(exception.body.retry_after));
      if (exception.status === 503)
        res.setHeader('Retry-After', String(exception.body.retry_after ?? RETRY_AFTER_SECONDS));
      res.status(exception.status).json(exception.body);
      return;
    }
    if (isDiskFull(exception)) {
      // an upload's temporary file found the disk full: it is removed, nothing was committed
      this.log.error(
        { err: { code: (exception as { code?: unknown }).code, message: (exception as Error).message } },
        'disk full: a write was refused',
      );
      res.status(507).json(diskFull().body);
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      res.status(status).json({ reason: status === 404 ? 'not found' : exception.message });
      return;
    }
    this.log.error(
      { err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception },
      'unhandled error',
    );
    res.status(500).json({ reason: 'internal error' });
  }
}
