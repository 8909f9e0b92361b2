/**
 * The standalone composition root: all four apps in one process on the in-process bus, with the
 * embedded adapters (or whatever the environment configures).
 */
import 'reflect-metadata';
import { startAccounts } from '@burrow/accounts';
import { startBilling } from '@burrow/billing';
import { startGateway } from '@burrow/gateway';
import { type BurrowConfig, Infrastructure, startTracing } from '@burrow/runtime';
import { startStorageCatalog } from '@burrow/storage-catalog';

export interface RunningSystem {
  infra: Infrastructure;
  port: number;
  /** https:// when BURROW_TLS_CERT/KEY are set */
  url: string;
  /** the plain-HTTP port that only redirects to https (BURROW_HTTP_REDIRECT_PORT) */
  redirectPort?: number;
  close(): Promise<void>;
}

export async function startSystem(
  config: BurrowConfig,
  options: { port?: number; now?: () => number } = {},
): Promise<RunningSystem> {
  // OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on for the process (once, whatever the number of systems it runs); else nothing of it is loaded
  const tracing = await startTracing('standalone');
  const infra = new Infrastructure(config, undefined, { tracing });
  if (tracing)
    infra
      .logger('runtime')
      .info(
        { serviceName: tracing.serviceName, endpoint: tracing.endpoint, protocol: tracing.protocol },
        'tracing on: spans exported over OTLP',
      );
  const services: { close(): Promise<void> }[] = [];
  try {
    services.push(await startAccounts(infra));
    services.push(await startBilling(infra));
    services.push(await startStorageCatalog(infra));
    const gateway = await startGateway(infra, options);
    services.push(gateway);
    return {
      infra,
      port: gateway.port,
      url: `${gateway.tls ? 'https' : 'http'}://127.0.0.1:${gateway.port}`,
      redirectPort: gateway.redirectPort,
      close: async () => {
        for (const s of services.reverse()) await s.close();
        await infra.close();
        // the spans of the last requests are sent (the provider stays: it is the process's)
        await tracing?.flush().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const s of services.reverse()) await s.close().catch(() => undefined);
    await infra.close();
    throw error;
  }
}
