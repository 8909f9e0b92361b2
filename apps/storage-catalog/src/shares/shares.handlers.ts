/** Bus handlers for share rooms. */
import { notFound, type PositionReply, type SetShareEnabledRequest, Streams, Subjects, type UserShareRoom } from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { findPartnerUser } from '../users/users.projection.js';
import { shareRoomId, shareRoomsCollection, toUserShareRoom } from './share-rooms.projection.js';
import { shareRoomsDecider } from './share-rooms.js';

@Controller()
export class SharesHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  /**
   * A partner enables or disables one of its user's rooms (interface A). The reply is sent once the
   * accounts service's read models show the change too (read-your-writes across services).
   */
  @MessagePattern(Subjects.storage.setShareEnabled)
  async setEnabled(@Payload() req: SetShareEnabledRequest): Promise<UserShareRoom> {
    const user = await findPartnerUser(this.ctx.docs, req.partnerId, req.user);
    const result = await handleCommand(this.ctx.store, Streams.share(user._id), shareRoomsDecider, {
      type: 'SetShareRoomEnabled',
      room_key: req.room_key,
      enabled: req.enabled,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    await this.ctx.rpc.call<PositionReply>(Subjects.accounts.sync, { position: result.position });
    const room = await shareRoomsCollection(this.ctx.docs).get(shareRoomId(user._id, req.room_key));
    if (!room) throw notFound(`no share ${req.room_key}`);
    return toUserShareRoom(room);
  }
}
