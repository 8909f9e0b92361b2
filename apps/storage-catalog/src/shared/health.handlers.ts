import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { replicaId } from '@burrow/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { STORAGE_CONTEXT, type StorageContext } from './context.js';

/** The storage-catalog service's health: asked on the queue group (the gateway's /readyz) and sent as this replica's own report. */
export const storageHealth = (ctx: StorageContext): Promise<HealthReply> =>
  serviceHealth('storage-catalog', ctx.store, ctx.docs, ctx.runner);

@Controller()
export class HealthHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  @MessagePattern(Subjects.storage.health)
  async health(): Promise<HealthReply> {
    return { ...(await storageHealth(this.ctx)), replica: replicaId() };
  }
}
