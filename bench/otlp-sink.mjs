#!/usr/bin/env node
/**
 * An OTLP/HTTP endpoint that takes spans and throws them away, for measuring what tracing costs
 * Burrow (not a collector): it reads each export, answers 200 as a collector does, and on
 * SIGINT/SIGTERM prints how many exports and bytes it took. Run it in its own process beside a
 * bench, the bench with `OTEL_EXPORTER_OTLP_ENDPOINT` set to the URL it prints:
 *
 *   node bench/otlp-sink.mjs &                      # prints http://127.0.0.1:<port>
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<port> npm run bench:accounts
 *   kill %1                                          # prints what it took
 */
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk) => (bytes += chunk.length));
  req.on('end', () => {
    exports += 1;
    const json = (req.headers['content-type'] ?? '').startsWith('application/json');
    res
      .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
      .end(json ? '{}' : undefined);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`http://127.0.0.1:${server.address().port}`),
);
const stop = () => {
  console.log(`otlp-sink: ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
