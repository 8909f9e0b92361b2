import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from './metrics.js';

/** The exposition's sample lines of one metric, label sets in Prometheus's text form. */
async function samples(metrics: GatewayMetrics, name: string): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('GatewayMetrics.observeRequest', () => {
  it('counts each (method, route, status) in its own series and observes the duration by (method, route)', async () => {
    const metrics = new GatewayMetrics();
    metrics.observeRequest('GET', '/users/:user', 200, 0.002);
    metrics.observeRequest('GET', '/users/:user', 200, 0.02);
    metrics.observeRequest('GET', '/users/:user', 404, 0.0005);
    metrics.observeRequest('HEAD', '/users/:user', 200, 0.002);
    const counts = await samples(metrics, 'burrow_http_requests_total');
    assert.deepEqual(counts.sort(), [
      'burrow_http_requests_total{method="GET",route="/users/:user",status="200"} 2',
      'burrow_http_requests_total{method="GET",route="/users/:user",status="404"} 1',
      'burrow_http_requests_total{method="HEAD",route="/users/:user",status="200"} 1',
    ]);
    const durations = await samples(metrics, 'burrow_http_request_duration_seconds_count');
    assert.deepEqual(durations.sort(), [
      'burrow_http_request_duration_seconds_count{method="GET",route="/users/:user"} 3',
      'burrow_http_request_duration_seconds_count{method="HEAD",route="/users/:user"} 1',
    ]);
    const sums = await samples(metrics, 'burrow_http_request_duration_seconds_sum');
    const getSum = Number(sums.find((line) => line.includes('method="GET"'))!.split(' ')[1]);
    assert.ok(Math.abs(getSum - 0.0225) < 1e-9, `sum of GET durations: ${getSum}`);
  });

  it('keeps counting every series past the number it remembers', async () => {
    const metrics = new GatewayMetrics();
    // more distinct series than are kept (1,000): the forgotten ones are looked up again, not lost
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 1200; i++) metrics.observeRequest('GET', `/route/${i}`, 200, 0.001);
    const counts = await samples(metrics, 'burrow_http_requests_total');
    assert.equal(counts.length, 1200);
    assert.ok(counts.every((line) => line.endsWith(' 2')));
  });
});
