#!/usr/bin/env node
/**
 * The baseline `bench:ingest` measures uploads against: a bare Node `http` server doing only what
 * an upload must (the bytes to disk, durably), run as its own process like the gateway. Each `PUT`
 * streams its body into a new file under the folder given as the first argument, fsyncs the file,
 * then answers 201. No framework, no hashing, no catalog.
 *
 *   node bench/bare-put-server.mjs <folder>    (prints the port it listens on, then serves)
 */
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const folder = process.argv[2];
let next = 0;
const server = createServer(async (req, res) => {
  if (req.method !== 'PUT') {
    res.writeHead(req.url === '/readyz' ? 200 : 405).end();
    return;
  }
  try {
    // flush: the file is fsynced before the stream closes
    await pipeline(req, createWriteStream(join(folder, `f${next++}`), { flush: true }));
    res.writeHead(201).end();
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
