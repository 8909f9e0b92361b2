/**
 * Share rooms of the logged-in user (DESIGN §5), authenticated as the user like every storage
 * request:
 * - `GET /storage/<b32>/shares`: the spec's Share list object (`share_id`, `share_rooms`), with
 *   `share_id_b32` and each room's friendly URL and counts (CLIENT-FACTS);
 * - `POST /storage/<b32>/shares` (JSON ShareRoomBody): creates a room, 201 with the room;
 * - `POST /storage/<b32>/shares?room_key=K` (JSON UpdateShareRoomBody): changes the fields given;
 * - `DELETE /storage/<b32>/shares?room_key=K`: deletes the room.
 * `.../shares/` (trailing slash) is a device named "shares", not this resource: those requests go
 * on to the routes after this controller (registered first for that reason).
 */
import {
  type AuthenticatedUser,
  badRequest,
  type OwnShareRoom,
  ShareRoomBody,
  type ShareRoomInfo,
  Subjects,
  UpdateShareRoomBody,
  type UserShareRooms,
  z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, Next, Req, Res, UseGuards } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { b32encode } from '../storage-access/b32.js';
import { readJsonBody } from '../http/json-body.js';
import { STORAGE_MOUNT } from '../storage-access/mounts.js';
import { parseBody, Query } from '../http/request.js';
import { shareRoomUrl } from '../storage-access/share-rooms.js';
import { parseMountedPath } from '../storage-access/storage-path.js';
import { StorageUser, StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { PUBLIC_URL, RPC } from '../http/tokens.js';
import { Route } from '../http/route.js';
import { SHARE_ROOM_ROUTES } from './share-rooms.routes.js';

/** A room as the storage interface shows it to its owner. */
export const shareRoomObject = (publicUrl: string, shareId: string, room: ShareRoomInfo) => ({
  url: shareRoomUrl(publicUrl, shareId, room.room_key),
  room_key: room.room_key,
  room_name: room.name,
  room_description: room.description,
  dirs: room.dirs,
  enabled: room.enabled,
  password_required: room.password_required,
  expires: room.expires,
  downloads: room.downloads,
  last_access: room.last_access,
  number_of_files: room.files,
  number_of_folders: room.folders,
  creation_time: room.creation_time,
  update_time: room.update_time,
});

@Controller()
@UseGuards(StorageUserGuard)
export class ShareRoomsController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PUBLIC_URL) private readonly publicUrl: string,
  ) {}

  /** `.../shares/` names a device called "shares": not ours. */
  private isDeviceUrl(req: Request): boolean {
    return parseMountedPath(req, STORAGE_MOUNT).folder;
  }

  @Route(SHARE_ROOM_ROUTES.list)
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @Next() next: NextFunction,
    @StorageUser() user: AuthenticatedUser,
  ): Promise<void> {
    if (this.isDeviceUrl(req)) return next();
    const shares = await this.rpc.call<UserShareRooms>(Subjects.storage.listShares, { userId: user.userId });
    res.status(200).json({
      share_id: shares.share_id,
      share_id_b32: b32encode(shares.share_id),
      share_rooms: shares.rooms.map((room) => shareRoomObject(this.publicUrl, shares.share_id, room)),
    });
  }

  @Route(SHARE_ROOM_ROUTES.write)
  async write(
    @Req() req: Request,
    @Res() res: Response,
    @Next() next: NextFunction,
    @StorageUser() user: AuthenticatedUser,
    @Query(SHARE_ROOM_ROUTES.write.query) { room_key }: z.output<typeof SHARE_ROOM_ROUTES.write.query>,
  ): Promise<void> {
    if (this.isDeviceUrl(req)) return next();
    const body = await readJsonBody(req);
    if (room_key === undefined) {
      const room = await this.rpc.call<OwnShareRoom>(Subjects.storage.createShare, {
        userId: user.userId,
        ...parseBody(ShareRoomBody, body, { required: true }),
      });
      res.status(201).json(shareRoomObject(this.publicUrl, room.share_id, room));
      return;
    }
    const changes = parseBody(UpdateShareRoomBody, body);
    const room = await this.rpc.call<OwnShareRoom>(Subjects.storage.updateShare, {
      userId: user.userId,
      room_key,
      changes,
    });
    res.status(200).json(shareRoomObject(this.publicUrl, room.share_id, room));
  }

  @Route(SHARE_ROOM_ROUTES.remove)
  async delete(
    @Req() req: Request,
    @Res() res: Response,
    @Next() next: NextFunction,
    @StorageUser() user: AuthenticatedUser,
    @Query(SHARE_ROOM_ROUTES.remove.query) { room_key }: z.output<typeof SHARE_ROOM_ROUTES.remove.query>,
  ): Promise<void> {
    if (this.isDeviceUrl(req)) return next();
    if (room_key === undefined) throw badRequest('name the room to delete: ?room_key=<key>', ['room_key']);
    await this.rpc.call(Subjects.storage.deleteShare, { userId: user.userId, room_key });
    res.status(200).end();
  }
}
