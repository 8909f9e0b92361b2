import { type HealthReply, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { STORAGE_CONTEXT, type StorageContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  @MessagePattern(Subjects.storage.health)
  async health(): Promise<HealthReply> {
    await this.ctx.store.ping();
    await this.ctx.docs.ping();
    return { service: 'storage-catalog', ok: true, position: this.ctx.runner.currentPosition };
  }
}
