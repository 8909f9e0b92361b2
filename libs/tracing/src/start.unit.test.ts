/** When tracing is on: only with an OTLP endpoint, and not when disabled (OpenTelemetry's standard variables). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTracing, tracingProtocol, tracingRequested } from './start.js';

describe('tracingRequested', () => {
  it('is off by default and with other OpenTelemetry variables alone', () => {
    assert.equal(tracingRequested({}), false);
    assert.equal(
      tracingRequested({
        OTEL_SERVICE_NAME: 'x',
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
      false,
    );
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), false);
    // another signal's endpoint is not a traces endpoint
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' }), false);
  });

  it('is on with the OTLP endpoint or the traces endpoint', () => {
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
  });

  it('is off when the SDK or the traces exporter is disabled', () => {
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }), false);
    assert.equal(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
      false,
    );
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' }), true);
  });

  it('exports OTLP protobuf unless told JSON, the traces variable first', () => {
    assert.equal(tracingProtocol({}), 'http/protobuf');
    assert.equal(tracingProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), 'http/json');
    assert.equal(
      tracingProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
      'http/protobuf',
    );
  });

  it('off (this process has no endpoint), startTracing gives null', async () => {
    assert.equal(tracingRequested(process.env), false, 'run without OTEL_EXPORTER_OTLP_ENDPOINT');
    assert.equal(await startTracing('x'), null);
  });
});
