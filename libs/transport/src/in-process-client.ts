/** Nest ClientProxy on the InProcessBus: what the gateway uses instead of ClientNats standalone. */
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { InProcessBus } from './in-process-bus.js';
import { deserializeReply } from './json-text.js';

export class InProcessClient extends ClientProxy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {}

  close(): void {}

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const packet = this.assignPacketId(partialPacket);
    let cancelled = false;
    try {
      this.bus.request(this.normalizePattern(packet.pattern), JSON.stringify(packet), (raw) => {
        if (!cancelled) callback(deserializeReply(raw) as WritePacket);
      });
    } catch (err) {
      callback({ err, isDisposed: true });
    }
    return () => {
      cancelled = true;
    };
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    this.bus.publish(this.normalizePattern(packet.pattern), JSON.stringify({ data: packet.data }));
    return undefined as T;
  }
}
