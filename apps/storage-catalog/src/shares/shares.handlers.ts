/**
 * Bus handlers for share rooms: the logged-in user lists, creates, edits and deletes their rooms
 * (storage interface); anyone opens a room by its public address (share id and room key); a
 * partner enables or disables a user's room (interface A). Every write replies once this service's
 * read models and the accounts service's show it (the brand-wide share list and the user's
 * `share_rooms` included): read-your-writes across services.
 */
import {
  type CreateShareRoomRequest,
  forbidden,
  notFound,
  type OpenShareRequest,
  type OwnShareRoom,
  parseRequest,
  type PositionReply,
  type PublicShareRoom,
  SHARE_ROOMS_MAX,
  type SetShareEnabledRequest,
  ShareRoomBody,
  type ShareRoomInfo,
  type ShareRoomRef,
  Streams,
  Subjects,
  UpdateShareRoomBody,
  type UpdateShareRoomRequest,
  type UserScoped,
  type UserShareRoom,
  type UserShareRooms,
} from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomBytes } from 'node:crypto';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { findPartnerUser, requireUser, type StorageUserDoc, userByShareId } from '../users/users.projection.js';
import { liveDevices, roomCounts } from './room-counts.js';
import { partnerSharingEnabled } from './partner-sharing.js';
import { resolveShareDirs } from './share-dirs.js';
import { ROOM_ORDER, type ShareRoomDoc, shareRoomId, shareRoomsCollection, toUserShareRoom } from './share-rooms.projection.js';
import { type ShareRoomsCommand, shareRoomsDecider } from './share-rooms.js';

/** 16 URL-safe characters (96 random bits): within ROOM_KEY_PATTERN, and not guessable. */
export const generateRoomKey = () => randomBytes(12).toString('base64url');

@Controller()
export class SharesHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  /** The user, waiting for the read model once if they are brand new; 404 for a deleted one. */
  private async user(userId: string): Promise<StorageUserDoc> {
    try {
      return await requireUser(this.ctx.docs, userId);
    } catch {
      await this.ctx.runner.catchUp();
      return requireUser(this.ctx.docs, userId);
    }
  }

  /** Appends the command's events, then waits until this service's and accounts' read models have them. */
  private async run(userId: string, command: ShareRoomsCommand): Promise<void> {
    const result = await handleCommand(this.ctx.store, Streams.share(userId), shareRoomsDecider, command);
    if (result.position === null) return;
    await this.ctx.runner.waitFor(result.position);
    await this.ctx.rpc.call<PositionReply>(Subjects.accounts.sync, { position: result.position });
  }

  private async room(userId: string, room_key: string): Promise<ShareRoomDoc> {
    const room = await shareRoomsCollection(this.ctx.docs).get(shareRoomId(userId, room_key));
    if (!room) throw notFound(`no share ${room_key}`);
    return room;
  }

  private async info(room: ShareRoomDoc, devices?: Map<string, string>): Promise<ShareRoomInfo> {
    const counts = await roomCounts(this.ctx.docs, devices ?? (await liveDevices(this.ctx.docs, room.userId)), room.dirs);
    return {
      room_key: room.room_key, name: room.name, description: room.description, dirs: room.dirs, enabled: room.enabled,
      creation_time: room.creation_time, update_time: room.update_time, ...counts,
    };
  }

  /** The user's rooms, oldest first, with what each holds (at most SHARE_ROOMS_MAX, the most a user can have). */
  @MessagePattern(Subjects.storage.listShares)
  async list(@Payload() req: UserScoped): Promise<UserShareRooms> {
    const user = await this.user(req.userId);
    const rooms = await shareRoomsCollection(this.ctx.docs).find({ userId: user._id }, { sort: ROOM_ORDER, limit: SHARE_ROOMS_MAX });
    const devices = await liveDevices(this.ctx.docs, user._id);
    const infos: ShareRoomInfo[] = [];
    for (const room of rooms) infos.push(await this.info(room, devices));
    return { share_id: user.share_id, rooms: infos };
  }

  /**
   * A new room: the key is the client's (409 `room_key` if the user has a room with it) or a
   * random one; every shared folder must be one of the user's live folders (400 `dirs`).
   */
  @MessagePattern(Subjects.storage.createShare)
  async create(@Payload() req: CreateShareRoomRequest): Promise<OwnShareRoom> {
    const body = parseRequest(ShareRoomBody, { room_key: req.room_key, room_name: req.room_name, room_description: req.room_description, dirs: req.dirs });
    const user = await this.user(req.userId);
    const dirs = await resolveShareDirs(this.ctx, user._id, body.dirs);
    const room_key = body.room_key ?? generateRoomKey();
    await this.run(user._id, {
      type: 'CreateShareRoom', room_key, name: body.room_name, description: body.room_description, dirs, userId: user._id, partnerId: user.partnerId,
      at: this.ctx.clock.now(),
    });
    return { ...(await this.info(await this.room(user._id, room_key))), share_id: user.share_id };
  }

  /** Changes the given fields of one of the user's rooms (the shared folders checked as on create). */
  @MessagePattern(Subjects.storage.updateShare)
  async update(@Payload() req: UpdateShareRoomRequest): Promise<OwnShareRoom> {
    const changes = parseRequest(UpdateShareRoomBody, req.changes ?? {});
    const user = await this.user(req.userId);
    await this.room(user._id, req.room_key);
    const dirs = changes.dirs === undefined ? undefined : await resolveShareDirs(this.ctx, user._id, changes.dirs);
    await this.run(user._id, {
      type: 'UpdateShareRoom',
      room_key: req.room_key,
      changes: { name: changes.room_name, description: changes.room_description, dirs },
      at: this.ctx.clock.now(),
    });
    return { ...(await this.info(await this.room(user._id, req.room_key))), share_id: user.share_id };
  }

  @MessagePattern(Subjects.storage.deleteShare)
  async delete(@Payload() req: ShareRoomRef): Promise<{ ok: true }> {
    const user = await this.user(req.userId);
    await this.run(user._id, { type: 'DeleteShareRoom', room_key: req.room_key, at: this.ctx.clock.now() });
    return { ok: true };
  }

  /**
   * A room by its public address. Unknown, disabled, or whose owner is deleted or disabled: all
   * the same 404, so an address reveals nothing about why it does not work.
   */
  @MessagePattern(Subjects.storage.openShare)
  async open(@Payload() req: OpenShareRequest): Promise<PublicShareRoom> {
    const missing = () => notFound('no such share');
    if (typeof req.share_id !== 'string' || typeof req.room_key !== 'string') throw missing();
    const owner = await userByShareId(this.ctx.docs, req.share_id);
    if (!owner || owner.enabled === false) throw missing();
    const room = await shareRoomsCollection(this.ctx.docs).get(shareRoomId(owner._id, req.room_key));
    if (!room || !room.enabled) throw missing();
    // the owner's partner may have turned sharing off: every room stops until it is turned back on
    if (!(await partnerSharingEnabled(this.ctx, owner.partnerId))) throw forbidden('sharing is turned off for this account');
    return { ...(await this.info(room)), userId: owner._id, share_id: owner.share_id, owner_name: owner.name };
  }

  /**
   * A partner enables or disables one of its user's rooms (interface A). The reply is sent once the
   * accounts service's read models show the change too (read-your-writes across services).
   */
  @MessagePattern(Subjects.storage.setShareEnabled)
  async setEnabled(@Payload() req: SetShareEnabledRequest): Promise<UserShareRoom> {
    const user = await findPartnerUser(this.ctx.docs, req.partnerId, req.user);
    await this.run(user._id, { type: 'SetShareRoomEnabled', room_key: req.room_key, enabled: req.enabled, at: this.ctx.clock.now() });
    return toUserShareRoom(await this.room(user._id, req.room_key));
  }
}
