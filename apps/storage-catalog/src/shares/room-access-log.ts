/**
 * Visits of public share rooms, counted in memory and written as events now and then: a room
 * opened by its public address (an access) and a file or zip fetched from it (a download) are
 * noted here, and every `flushMs` each room seen since the last flush gets one `ShareRoomAccessed`
 * event in its owner's share stream: how many downloads, and when the last access was. So a room
 * fetched a thousand times a minute costs one event a minute, not a thousand; the owner's and the
 * partner's room records add the events up. A replica that dies loses what it counted since its
 * last flush (at most `flushMs` of counts); a stopping one flushes first.
 */
import { Streams } from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import { shareRoomsDecider } from './share-rooms.js';

interface Pending {
  userId: string;
  room_key: string;
  downloads: number;
  /** unix seconds of the last access */
  last: number;
}

/** The most rooms counted between two flushes: past it, a flush starts at once (memory stays bounded). */
const MAX_PENDING = 10_000;

export class RoomAccessLog {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: StorageContext,
    private readonly flushMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** A room was opened (`download`: a file or a zip of it was fetched). */
  record(userId: string, room_key: string, download: boolean): void {
    const id = `${userId}:${room_key}`;
    const entry = this.pending.get(id) ?? { userId, room_key, downloads: 0, last: 0 };
    entry.downloads += download ? 1 : 0;
    entry.last = this.ctx.clock.now();
    this.pending.set(id, entry);
    if (this.pending.size >= MAX_PENDING) void this.flush();
  }

  /** Writes what was counted since the last flush (one event per room); flushes run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = [...this.pending.values()];
      this.pending = new Map();
      for (const entry of batch) {
        try {
          await handleCommand(this.ctx.store, Streams.share(entry.userId), shareRoomsDecider, {
            type: 'RecordShareRoomAccess',
            room_key: entry.room_key,
            downloads: entry.downloads,
            at: entry.last,
          });
        } catch (error) {
          this.ctx.log.warn({ err: error, room_key: entry.room_key }, 'share room accesses not recorded');
        }
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
