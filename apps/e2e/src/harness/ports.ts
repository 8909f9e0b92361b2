/**
 * A port for a test server that is killed and started again on the same port (a private NATS or
 * FerretDB). It is taken below the kernel's ephemeral range, never from it: while such a server is
 * down, its clients keep reconnecting to its port, and every outgoing connection on the machine
 * (and every `listen(0)`) draws its local port from the ephemeral range. A port from that range can
 * be taken by one of them during the outage, or by a reconnecting client itself (a TCP
 * self-connect: the kernel gives the client the very port it dials, and it connects to itself),
 * and the server then cannot start again on it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FLOOR = 10_000;

/** The first port of the kernel's ephemeral range (Linux), else IANA's 49152. */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && low > FLOOR + 1000) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** A free port on 127.0.0.1 outside the ephemeral range, chosen at random (so runs side by side rarely meet). */
export async function stablePort(): Promise<number> {
  const high = ephemeralLow();
  for (let tries = 0; tries < 200; tries++) {
    const port = FLOOR + Math.floor(Math.random() * (high - FLOOR));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${FLOOR} and ${high}`);
}
