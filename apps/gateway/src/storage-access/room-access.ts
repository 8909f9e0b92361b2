/**
 * Passwords on share rooms, at the gateway. A room with a password opens for a visitor who gives
 * it: with HTTP Basic (any user name, the room password: what the mobile app sends), or with the
 * room cookie the room page's password form sets. The cookie is a signed token naming the room
 * and a stamp of its password hash, so changing or removing the password ends every cookie made
 * before, on every replica; it is scoped to the room's path. The password itself is checked by
 * the services (the catalog holds the hash, the accounts service checks it through the
 * failed-login throttle); the cookie's stamp is compared by the catalog too, in the same call that
 * opens the room.
 */
import { DomainError, type PublicShareRoom } from '@burrow/contracts';
import type { Request, Response } from 'express';
import { basicCredentials } from '../http/basic-auth.js';
import { clientAddress } from '../http/client-address.js';
import { cookieValue } from './sessions.js';
import type { TokenSigner } from './signed-tokens.js';

export const ROOM_COOKIE = 'burrow_room';
/** The challenge of a room that needs its password (any user name, the room password). */
export const ROOM_REALM = 'Basic realm="burrow share room", charset="UTF-8"';
/** A day: a visitor who typed the password browses the room without typing it again. */
export const ROOM_COOKIE_TTL_SECONDS = 24 * 60 * 60;

export interface RoomClaims {
  /** `<share id>/<room key>` */
  r: string;
  /** the room's password stamp when the password was given */
  ps: string;
}

/** What a visitor offers to open a room with a password (sent with every openShare call). */
export interface RoomKeys {
  password?: string;
  stamp?: string;
  address: string;
}

export const roomRef = (shareId: string, roomKey: string) => `${shareId}/${roomKey}`;

/** The room's path as the request spelled it (`/share/<segment>/<key>/`): where its cookie belongs. */
export function roomCookiePath(req: Request): string {
  const path = (req.originalUrl ?? req.url).split('?')[0];
  const [, mount, share, key] = path.split('/');
  return `/${mount}/${share}/${key}/`;
}

/** The Basic password and the room cookie's stamp of a request, with its address. */
export function roomKeys(req: Request, signer: TokenSigner): RoomKeys {
  const claims = signer.verify<RoomClaims>('room', cookieValue(req, ROOM_COOKIE));
  const basic = basicCredentials(req);
  return {
    password: basic?.password || undefined,
    // the stamp is a digest of the room's own password hash: another room's cookie never matches
    stamp: claims && typeof claims.ps === 'string' ? claims.ps : undefined,
    address: clientAddress(req),
  };
}

/** The refusal of a room that needs its password (401; `password_required` tells clients why). */
export const passwordRequired = (reason = 'this share room needs its password') =>
  new DomainError(401, { reason, password_required: true });

export const isPasswordRequired = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.status === 401 && error.body.password_required === true;

/** The room cookie for a room its visitor just gave the password of (Secure when the request came over TLS). */
export function setRoomCookie(req: Request, res: Response, signer: TokenSigner, room: PublicShareRoom): void {
  if (!room.password_stamp) return;
  const token = signer.sign<RoomClaims>(
    'room',
    { r: roomRef(room.share_id, room.room_key), ps: room.password_stamp },
    ROOM_COOKIE_TTL_SECONDS,
  );
  res.cookie(ROOM_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: roomCookiePath(req),
    maxAge: ROOM_COOKIE_TTL_SECONDS * 1000,
  });
}

/** `?auth_required_format=json`: the mobile app asks to be told a password is needed with a 200, not a 401. */
export const wantsJsonPasswordPrompt = (req: Request) => {
  const format = req.query.auth_required_format;
  return typeof format === 'string' && /^json$/i.test(format);
};
