/**
 * How long a connection may last. Node's default cuts any request whose body has not fully arrived
 * 300 s after it began (`requestTimeout`, a 408): a large file on a slow uplink could then never be
 * backed up. Instead, there is no limit on a request's total time, and a connection on which no
 * byte moves either way for `idleSeconds` is destroyed: a stalled upload (its temporary data is
 * then removed by the blob store), a download or zip whose reader stopped reading, a client gone
 * without a word. Headers must still arrive within BURROW_HEADERS_TIMEOUT_SECONDS (connection-limits.ts).
 */
import type { Server } from 'node:http';

export function cutOnlyIdleConnections(server: Server, idleSeconds: number): void {
  server.requestTimeout = 0;
  // with no 'timeout' listener, Node destroys a socket idle this long (reads and writes both count)
  server.setTimeout(idleSeconds * 1000);
}
