/**
 * Entry-point plumbing for one service in its own process: validate configuration (a bad variable
 * stops the app with a message naming it), require NATS, start, and shut down cleanly on signals.
 *
 * A service process never stops on its own: bus connections reconnect forever, and if one is
 * nevertheless closed for good, or the process runs out of work, it says so and exits non-zero
 * so that a supervisor restarts it (never a silent exit with status 0).
 */
import { startTracing, type Tracing } from '@burrow/tracing';
import { ConfigError, readConfig } from './config.js';
import { Infrastructure } from './infrastructure.js';

export async function runServiceProcess(
  name: string,
  start: (infra: Infrastructure) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  let infra: Infrastructure;
  let tracing: Tracing | null;
  try {
    const config = readConfig();
    if (!config.natsUrl)
      throw new ConfigError([
        `NATS_URL is required to run ${name} as its own process (use "npm start" for standalone mode)`,
      ]);
    // before anything logs or connects: every logger, bus connection and store of the process is traced (OTEL_EXPORTER_OTLP_ENDPOINT; else nothing is loaded)
    tracing = await startTracing(name);
    infra = new Infrastructure(config, undefined, { tracing });
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const log = infra.logger(name);
  if (tracing)
    log.info(
      { serviceName: tracing.serviceName, endpoint: tracing.endpoint, protocol: tracing.protocol },
      'tracing on: spans exported over OTLP',
    );
  let stopping = false;
  infra.onBusLost = (connection, error) => {
    if (stopping) return;
    log.fatal(
      { connection, error: error?.message },
      'bus connection closed for good; exiting so that a supervisor restarts this process',
    );
    process.exit(1);
  };
  process.once('beforeExit', () => {
    log.fatal('nothing left to do (the event loop drained); exiting so that a supervisor restarts this process');
    process.exit(1);
  });
  try {
    const service = await start(infra);
    const stop = async (signal: string) => {
      stopping = true;
      log.info({ signal }, 'shutting down');
      await service.close();
      await infra.close();
      // the spans of the last requests are sent before the process goes
      await tracing?.shutdown().catch(() => undefined);
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  } catch (error) {
    log.fatal({ err: { message: (error as Error).message, stack: (error as Error).stack } }, 'failed to start');
    await infra.close();
    process.exit(1);
  }
}
