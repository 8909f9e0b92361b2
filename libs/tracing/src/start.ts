/**
 * Whether tracing is on, from OpenTelemetry's standard variables, and starting it.
 *
 * Off by default: on only when an OTLP endpoint is given (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone), and not disabled
 * (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`). Off, nothing of the SDK is loaded
 * (`./sdk.js` is imported only here, when on): no module, no context manager (on Node 20 an
 * AsyncLocalStorage turns on promise hooks for every promise of the process), no span.
 */
import type { Tracing, TracingEnv, TracingProtocol } from './tracing.js';

const value = (env: TracingEnv, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v === '' ? undefined : v;
};

/** The OTLP protocols Burrow exports with (OTLP over HTTP; gRPC is not bundled). */
export const TRACING_PROTOCOLS: readonly TracingProtocol[] = ['http/protobuf', 'http/json'];

/** The protocol traces are exported with: the traces variable, else the general one, else OTLP's default. */
export const tracingProtocol = (env: TracingEnv): string =>
  value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';

/** True when the environment asks for traces to be exported. */
export function tracingRequested(env: TracingEnv = process.env): boolean {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  if (value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return false;
  return (
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined ||
    value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined
  );
}

/**
 * What is wrong with the tracing variables, each naming its variable (checked with the rest of the
 * configuration at start, so a typo stops the process instead of silently exporting nothing).
 */
export function tracingProblems(env: TracingEnv = process.env): string[] {
  const problems: string[] = [];
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const url = value(env, name);
    if (url === undefined) continue;
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      problems.push(`${name} is not a valid URL: "${url}"`);
      continue;
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      problems.push(`${name} must be an http:// or https:// URL (OTLP over HTTP; got "${protocol}")`);
  }
  if (!tracingRequested(env)) return problems;
  const protocol = tracingProtocol(env);
  if (!(TRACING_PROTOCOLS as readonly string[]).includes(protocol)) {
    const name = value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    problems.push(`${name} must be http/protobuf or http/json (Burrow exports OTLP over HTTP; got "${protocol}")`);
  }
  const exporter = value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp')
    problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}")`);
  return problems;
}

let started: Promise<Tracing> | null = null;

/**
 * Starts tracing for this process when its environment asks for it (else null, and nothing is
 * loaded). The SDK reads its settings from the process's environment itself (the exporter its
 * endpoint and headers, the provider its sampler, the batch processor its delays). `service`
 * names the process's spans (`burrow-<service>`) unless `OTEL_SERVICE_NAME` (or `service.name` in
 * `OTEL_RESOURCE_ATTRIBUTES`) says otherwise. Once per process: the SDK's provider, context
 * manager and propagator are the process's; a second call gets the first one's.
 */
export function startTracing(service: string): Promise<Tracing | null> {
  const env = process.env;
  if (!tracingRequested(env)) return Promise.resolve(null);
  started ??= import('./sdk.js').then((sdk) =>
    sdk.createTracing(`burrow-${service}`, env, tracingProtocol(env) as TracingProtocol),
  );
  return started;
}
