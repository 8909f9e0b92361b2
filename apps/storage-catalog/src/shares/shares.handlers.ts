import { type HealthReply, Streams, Subjects } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { STORAGE_CONTEXT } from '../shared/context.js';
import { shareRoomsDecider } from './share-rooms.js';

@Controller()
export class SharesHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: { store: EventStore }) {}

  @MessagePattern(Subjects.storage.health)
  async health(): Promise<HealthReply> {
    await this.ctx.store.ping();
    return { service: 'storage-catalog', ok: true, position: await this.ctx.store.headPosition() };
  }

  @MessagePattern(Subjects.storage.setShareEnabled)
  async setEnabled(@Payload() req: { userId: string; room_key: string; enabled: boolean }): Promise<{ position: number | null }> {
    const result = await handleCommand(this.ctx.store, Streams.share(req.userId), shareRoomsDecider, {
      type: 'SetShareEnabled',
      room_key: req.room_key,
      enabled: req.enabled === true,
      at: Math.floor(Date.now() / 1000),
    });
    return { position: result.position };
  }
}
