import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { STORAGE_CONTEXT, type StorageContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  @MessagePattern(Subjects.storage.health)
  async health(): Promise<HealthReply> {
    return serviceHealth('storage-catalog', this.ctx.store, this.ctx.docs, this.ctx.runner);
  }
}
