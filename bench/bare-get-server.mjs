#!/usr/bin/env node
/**
 * The baseline `bench:download` measures single-file downloads against: a bare Node `http` server
 * doing only what a download must (the file's bytes, with its length), run as its own process like
 * the gateway. `GET /<path>` streams `<folder>/<path>` in 1 MiB reads, as the blob store does.
 * No framework, no session, no catalog, no hash check.
 *
 *   node bench/bare-get-server.mjs <folder>    (prints the port it listens on, then serves)
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';
import { pipeline } from 'node:stream/promises';

const folder = process.argv[2];
const server = createServer(async (req, res) => {
  if (req.url === '/readyz') return void res.writeHead(200).end();
  try {
    const file = join(folder, normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    const { size } = await stat(file);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
    await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), res);
  } catch (error) {
    if (!res.headersSent) res.writeHead(404).end(String(error));
    else res.destroy();
  }
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
