/**
 * Share rooms as every interface addresses them: their URLs, their folders under unique
 * labels, and opening a public room by its URL. Shared by the share interface (share-api), the
 * owner's room list (storage-api) and the room pages (web).
 */
import { notFound, type OpenShareRequest, type PublicShareRoom, Subjects } from '@burrow/contracts';
import type { Request } from 'express';
import { passwordRequired, roomKeys } from './room-access.js';
import type { TokenSigner } from './signed-tokens.js';
import type { RpcClient } from '@burrow/transport';
import { b32decode, b32encode } from './b32.js';
import { BROWSE_SHARE_MOUNT } from './mounts.js';
import { encodeSegment } from './storage-path.js';

/**
 * A room's friendly URL, the link people are handed (the share list's `url`, a room's
 * `browse_url`): `/browse/share/<b32 share id>/<room key>` as the original service made it,
 * absolute when BURROW_PUBLIC_URL is set. It leads to the room's own address under `/share/`.
 */
export const shareRoomUrl = (publicUrl: string, shareId: string, roomKey: string) =>
  `${publicUrl}/${BROWSE_SHARE_MOUNT}/${b32encode(shareId)}/${encodeSegment(roomKey)}`;

/**
 * The share id a URL segment names, in the order to try: its base32 decoding (the form Burrow and
 * the original emit), then the segment as it is (people hand around `/browse/share/<share id>/...`
 * with the raw id too).
 */
export function shareIdCandidates(segment: string): string[] {
  const decoded = b32decode(segment);
  return decoded === null || decoded === segment ? [segment] : [decoded, segment];
}

/** The base32 form of a share id segment in either form (kept as it is when it is already base32). */
export const shareSegmentB32 = (segment: string) => (b32decode(segment) === null ? b32encode(segment) : segment);

/** A room folder as the room shows it: its label (the top-level name) and where it lives. */
export interface RoomFolder {
  label: string;
  device: string;
  /** the folder's path within the device ('' for the whole device) */
  path: string;
}

/** The room's folders under unique labels: each folder's own name (the device's for a whole device). */
export function roomFolders(dirs: string[]): RoomFolder[] {
  const used = new Set<string>();
  return dirs.map((dir) => {
    const slash = dir.indexOf('/');
    const device = slash < 0 ? dir : dir.slice(0, slash);
    const path = slash < 0 ? '' : dir.slice(slash + 1);
    const segments = path.split('/').filter(Boolean);
    const base = segments.length ? segments[segments.length - 1] : device;
    let label = base;
    for (let n = 2; used.has(label.toLowerCase()); n++) label = `${base} (${n})`;
    used.add(label.toLowerCase());
    return { label, device, path: segments.length ? `${segments.join('/')}/` : '' };
  });
}

/**
 * A public room by its URL's first two segments: an unknown, disabled, expired or deleted one is a
 * 404; one with a password, opened without it (HTTP Basic, the room cookie, or `given.password`
 * from the room page's form), is a 401 `password_required` (`room-access.ts`).
 */
export async function openRoom(
  rpc: RpcClient,
  req: Request,
  signer: TokenSigner,
  shareSegment: string | undefined,
  roomKey: string | undefined,
  given: { password?: string; download?: boolean } = {},
): Promise<PublicShareRoom> {
  if (!shareSegment || !roomKey) throw notFound('no such share');
  const [share_id, also_share_id] = shareIdCandidates(shareSegment);
  const keys = roomKeys(req, signer);
  const room = await rpc.call<PublicShareRoom>(Subjects.storage.openShare, {
    share_id,
    also_share_id,
    room_key: roomKey,
    password: given.password ?? keys.password,
    stamp: keys.stamp,
    address: keys.address,
    download: given.download,
  } satisfies OpenShareRequest);
  if (room.locked) throw passwordRequired();
  return room;
}

/** The room folder a URL names (its top folder by label, then the segments below): where it lives. */
export function roomFolderAt(folders: RoomFolder[], label: string, rest: string[]): { top: RoomFolder; path: string } {
  const top = folders.find((f) => f.label === label);
  if (!top) throw notFound(`no folder ${label} in this share`);
  return { top, path: top.path + (rest.length ? `${rest.join('/')}/` : '') };
}
