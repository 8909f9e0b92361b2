/**
 * Bus handlers for share rooms: the logged-in user lists, creates, edits and deletes their rooms
 * (storage interface); anyone opens a room by its public address (share id and room key); a
 * partner enables or disables a user's room (interface A). Every write replies once this service's
 * read models and the accounts service's show it (the brand-wide share list and the user's
 * `share_rooms` included): read-your-writes across services.
 */
import {
  badRequest,
  type CheckSharePasswordRequest,
  type CreateShareRoomRequest,
  forbidden,
  type HashSharePasswordReply,
  notFound,
  type OpenShareRequest,
  type OwnShareRoom,
  parseRequest,
  type PositionReply,
  type PublicShareRoom,
  SHARE_ROOMS_MAX,
  type SetShareEnabledRequest,
  type SetSharePasswordRequest,
  SharePassword,
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
import { Controller, Inject, Optional } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { createHash, randomBytes } from 'node:crypto';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { findPartnerUser, requireUser, type StorageUserDoc, userByShareId } from '../users/users.projection.js';
import type { RoomAccessLog } from './room-access-log.js';
import { liveDevices, roomCounts } from './room-counts.js';
import { partnerSharingEnabled } from './partner-sharing.js';
import { resolveShareDirs } from './share-dirs.js';
import {
  ROOM_ORDER,
  type ShareRoomDoc,
  shareRoomId,
  shareRoomsCollection,
  toUserShareRoom,
} from './share-rooms.projection.js';
import { type ShareRoomsCommand, shareRoomsDecider } from './share-rooms.js';

/**
 * What a room cookie binds to: a digest of the room's password hash (salted, so unique to the room
 * and to each setting of its password), never the hash itself.
 */
export const passwordStamp = (hash: string) =>
  createHash('sha256').update(`room-cookie\0${hash}`).digest('base64url').slice(0, 22);

/** An expiry a room is given: it must still be to come (400 `expires` otherwise). */
function futureExpiry(expires: number, now: number): number {
  if (expires <= now) throw badRequest('expires must be in the future (or null: never)', ['expires']);
  return expires;
}

/** 16 URL-safe characters (96 random bits): within ROOM_KEY_PATTERN, and not guessable. */
export const generateRoomKey = () => randomBytes(12).toString('base64url');

export const ROOM_ACCESS_LOG = Symbol('ROOM_ACCESS_LOG');

@Controller()
export class SharesHandlers {
  constructor(
    @Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext,
    /** where visits are counted (absent in tests of other features: not counted) */
    @Optional() @Inject(ROOM_ACCESS_LOG) private readonly accessLog?: RoomAccessLog,
  ) {}

  /** The user, waiting for the read model once if they are brand new; 404 for a deleted one. */
  private async user(userId: string): Promise<StorageUserDoc> {
    try {
      return await requireUser(this.ctx.docs, userId);
    } catch {
      await this.ctx.runner.catchUp();
      return requireUser(this.ctx.docs, userId);
    }
  }

  /** Appends the commands' events (one append), then waits until this service's and accounts' read models have them. */
  private async run(userId: string, commands: ShareRoomsCommand | ShareRoomsCommand[]): Promise<void> {
    const result = await handleCommand(this.ctx.store, Streams.share(userId), shareRoomsDecider, commands);
    if (result.position === null) return;
    await this.ctx.runner.waitFor(result.position);
    await this.ctx.rpc.call<PositionReply>(Subjects.accounts.sync, { position: result.position });
  }

  /** Setting a room's password: its scrypt hash, made by the accounts service (where every password is hashed); null removes it. */
  private async passwordCommand(room_key: string, password: string | null, at: number): Promise<ShareRoomsCommand> {
    const password_hash =
      password === null
        ? null
        : (await this.ctx.rpc.call<HashSharePasswordReply>(Subjects.accounts.hashSharePassword, { password })).hash;
    return { type: 'SetShareRoomPassword', room_key, password_hash, at };
  }

  private async room(userId: string, room_key: string): Promise<ShareRoomDoc> {
    const room = await shareRoomsCollection(this.ctx.docs).get(shareRoomId(userId, room_key));
    if (!room) throw notFound(`no share ${room_key}`);
    return room;
  }

  private async info(room: ShareRoomDoc, devices?: Map<string, string>): Promise<ShareRoomInfo> {
    const counts = await roomCounts(
      this.ctx.docs,
      devices ?? (await liveDevices(this.ctx.docs, room.userId)),
      room.dirs,
    );
    return {
      room_key: room.room_key,
      name: room.name,
      description: room.description,
      dirs: room.dirs,
      enabled: room.enabled,
      password_required: !!room.password_hash,
      expires: room.expires ?? null,
      downloads: room.downloads ?? 0,
      last_access: room.last_access ?? null,
      creation_time: room.creation_time,
      update_time: room.update_time,
      ...counts,
    };
  }

  /** The user's rooms, oldest first, with what each holds (at most SHARE_ROOMS_MAX, the most a user can have). */
  @MessagePattern(Subjects.storage.listShares)
  async list(@Payload() req: UserScoped): Promise<UserShareRooms> {
    const user = await this.user(req.userId);
    const rooms = await shareRoomsCollection(this.ctx.docs).find(
      { userId: user._id },
      { sort: ROOM_ORDER, limit: SHARE_ROOMS_MAX },
    );
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
    const body = parseRequest(ShareRoomBody, {
      room_key: req.room_key,
      room_name: req.room_name,
      room_description: req.room_description,
      dirs: req.dirs,
      password: req.password,
      expires: req.expires,
    });
    const user = await this.user(req.userId);
    const dirs = await resolveShareDirs(this.ctx, user._id, body.dirs);
    const room_key = body.room_key ?? generateRoomKey();
    const at = this.ctx.clock.now();
    const expiry =
      body.expires === undefined || body.expires === null ? {} : { expires: futureExpiry(body.expires, at) };
    const commands: ShareRoomsCommand[] = [
      {
        type: 'CreateShareRoom',
        room_key,
        name: body.room_name,
        description: body.room_description,
        dirs,
        ...expiry,
        userId: user._id,
        partnerId: user.partnerId,
        at,
      },
    ];
    if (body.password) commands.push(await this.passwordCommand(room_key, body.password, at));
    await this.run(user._id, commands);
    return { ...(await this.info(await this.room(user._id, room_key))), share_id: user.share_id };
  }

  /** Changes the given fields of one of the user's rooms (the shared folders checked as on create). */
  @MessagePattern(Subjects.storage.updateShare)
  async update(@Payload() req: UpdateShareRoomRequest): Promise<OwnShareRoom> {
    const changes = parseRequest(UpdateShareRoomBody, req.changes ?? {});
    const user = await this.user(req.userId);
    await this.room(user._id, req.room_key);
    const dirs = changes.dirs === undefined ? undefined : await resolveShareDirs(this.ctx, user._id, changes.dirs);
    const at = this.ctx.clock.now();
    const expires =
      changes.expires === undefined || changes.expires === null ? changes.expires : futureExpiry(changes.expires, at);
    const commands: ShareRoomsCommand[] = [
      {
        type: 'UpdateShareRoom',
        room_key: req.room_key,
        changes: { name: changes.room_name, description: changes.room_description, dirs, expires },
        at,
      },
    ];
    if (changes.password !== undefined) commands.push(await this.passwordCommand(req.room_key, changes.password, at));
    await this.run(user._id, commands);
    return { ...(await this.info(await this.room(user._id, req.room_key))), share_id: user.share_id };
  }

  @MessagePattern(Subjects.storage.deleteShare)
  async delete(@Payload() req: ShareRoomRef): Promise<{ ok: true }> {
    const user = await this.user(req.userId);
    await this.run(user._id, { type: 'DeleteShareRoom', room_key: req.room_key, at: this.ctx.clock.now() });
    return { ok: true };
  }

  /** The owner and room a public address names: the first share id of the request that has the room. */
  private async addressed(req: OpenShareRequest): Promise<{ owner: StorageUserDoc; room: ShareRoomDoc } | null> {
    if (typeof req.room_key !== 'string') return null;
    for (const shareId of [req.share_id, req.also_share_id]) {
      if (typeof shareId !== 'string') continue;
      const owner = await userByShareId(this.ctx.docs, shareId);
      if (!owner) continue;
      const room = await shareRoomsCollection(this.ctx.docs).get(shareRoomId(owner._id, req.room_key));
      if (room) return { owner, room };
    }
    return null;
  }

  /**
   * A room by its public address. Unknown, disabled, expired, or whose owner is deleted or disabled:
   * all the same 404, so an address reveals nothing about why it does not work. A room with a
   * password opens with it (checked by the accounts service, throttled like logins) or with the
   * stamp of a room cookie; otherwise it comes back `locked`, for the gateway to ask for it.
   */
  @MessagePattern(Subjects.storage.openShare)
  async open(@Payload() req: OpenShareRequest): Promise<PublicShareRoom> {
    const missing = () => notFound('no such share');
    const found = await this.addressed(req);
    if (!found || found.owner.enabled === false || !found.room.enabled) throw missing();
    const { owner, room } = found;
    // an expired room is gone for its visitors, exactly like an unknown one
    if (typeof room.expires === 'number' && room.expires <= this.ctx.clock.now()) throw missing();
    // the owner's partner may have turned sharing off: every room stops until it is turned back on
    if (!(await partnerSharingEnabled(this.ctx, owner.partnerId)))
      throw forbidden('sharing is turned off for this account');
    const hash = room.password_hash ?? null;
    const stamp = hash === null ? null : passwordStamp(hash);
    let locked = false;
    if (hash !== null && !(typeof req.stamp === 'string' && req.stamp === stamp)) {
      if (typeof req.password === 'string' && req.password !== '') {
        await this.ctx.rpc.call(Subjects.accounts.checkSharePassword, {
          room: `${owner.share_id}/${room.room_key}`,
          hash,
          password: req.password,
          address: req.address,
        } satisfies CheckSharePasswordRequest);
      } else locked = true;
    }
    // a visit (and a download) counts once the room is open to the visitor
    if (!locked) this.accessLog?.record(owner._id, room.room_key, req.download === true);
    return {
      ...(await this.info(room)),
      userId: owner._id,
      share_id: owner.share_id,
      owner_name: owner.name,
      locked,
      password_stamp: stamp,
    };
  }

  /**
   * A partner enables or disables one of its user's rooms (interface A). The reply is sent once the
   * accounts service's read models show the change too (read-your-writes across services).
   */
  /** A partner sets or removes one of its user's room passwords (interface A); replies like setEnabled. */
  @MessagePattern(Subjects.storage.setSharePassword)
  async setPassword(@Payload() req: SetSharePasswordRequest): Promise<UserShareRoom> {
    const password = parseRequest(SharePassword, req.password, { field: 'password' });
    const user = await findPartnerUser(this.ctx.docs, req.partnerId, req.user);
    await this.room(user._id, req.room_key);
    await this.run(user._id, await this.passwordCommand(req.room_key, password, this.ctx.clock.now()));
    return toUserShareRoom(await this.room(user._id, req.room_key));
  }

  @MessagePattern(Subjects.storage.setShareEnabled)
  async setEnabled(@Payload() req: SetShareEnabledRequest): Promise<UserShareRoom> {
    const user = await findPartnerUser(this.ctx.docs, req.partnerId, req.user);
    await this.run(user._id, {
      type: 'SetShareRoomEnabled',
      room_key: req.room_key,
      enabled: req.enabled,
      at: this.ctx.clock.now(),
    });
    return toUserShareRoom(await this.room(user._id, req.room_key));
  }
}
