/**
 * An upload refused while its body is still coming (an unknown device, a full quota, a quota
 * passed half way) is answered with `Connection: close`: nobody wants the rest of the body. But a
 * socket closed while the client is still sending makes the kernel answer the next bytes with a
 * reset, and a reset can reach the client before it has read the answer: the client sees EPIPE or
 * ECONNRESET instead of the 507 (curl: "Send failure"), and retries blindly.
 *
 * So the connection is closed the way web servers do (Apache's and nginx's "lingering close"):
 * the answer is sent, then our side of the connection is shut (FIN), and what the client still
 * sends is read and thrown away until it closes too, for at most LINGER_MS and LINGER_BYTES;
 * then the socket is destroyed. A request whose body was read whole closes as usual.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The longest a refused upload's connection is kept to let the answer reach the client (nginx
 * keeps reading for 30 s). A client on a loaded machine may not run for a while after the answer
 * arrives: a reset sent meanwhile makes it fail its next write and never read the answer.
 */
export const LINGER_MS = 5_000;
/** the most of a refused body read and thrown away meanwhile (over loopback 16 MiB passed in ~10 ms: too soon) */
export const LINGER_BYTES = 256 * 1024 * 1024;

/** Sets `Connection: close` on the answer to `req` and makes the close a lingering one (see above). */
export function closeAfterAnswer(req: IncomingMessage, res: { setHeader(name: string, value: string): unknown }): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void };
  const destroySoon = socket.destroySoon;
  if (typeof destroySoon !== 'function' || (socket as { burrowLingering?: boolean }).burrowLingering) return;
  (socket as { burrowLingering?: boolean }).burrowLingering = true;
  // Node's HTTP server calls destroySoon once the answer to a `Connection: close` request is written
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (req.complete || this.destroyed) return destroySoon.call(this);
    let discarded = 0;
    const stop = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    // the HTTP parser no longer wants these bytes: count and drop them
    this.removeAllListeners('data');
    this.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) stop();
    });
    this.once('end', stop);
    this.once('close', () => clearTimeout(timer));
    this.end();
    this.resume();
  };
}
