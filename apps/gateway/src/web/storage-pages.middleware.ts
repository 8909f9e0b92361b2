/**
 * The storage browser: the logged-in user's storage as pages, for requests that prefer `text/html`.
 * A middleware on `/storage/...` (WebModule), run before routing: a request a page is for is
 * answered here, every other one goes on to the storage interface's routes (their one handler).
 * - `GET /storage/<b32>/` devices with last login and commit; `GET <device or folder>/` a folder;
 *   `GET <file>?format=version_info` the file's versions, each downloadable; `GET .../shares` the
 *   user's share rooms with create, edit and delete forms;
 * - form posts (urlencoded, carrying the session's CSRF token): `POST <file>` makes the 3-day
 *   link and shows it with a copy button; `POST .../shares[?room_key=K]` creates, changes or
 *   (`action=delete`) deletes a room, or sets (`action=password`) or removes
 *   (`action=remove_password`) its password; `POST .../logout` ends the session.
 * Authentication is StorageUserGuard's own (session cookie, or Basic); without a valid session a
 * page redirects to the login page rather than challenging (no browser password dialog).
 * Every call is the JSON routes' bus subject, through the same helpers; pages are `no-store`.
 */
import { listingPageSize } from '../transfers/listing-page.js';
import {
  type AuthenticatedUser,
  badRequest,
  DomainError,
  type FileVersionInfo,
  type FolderPage,
  type OwnShareRoom,
  ShareRoomBody,
  type StorageRoot,
  Subjects,
  UpdateShareRoomBody,
  type UserShareRooms,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { dirPair, fileObject, type FileObject, humanSize, requestedVersion } from '../transfers/catalog-views.js';
import { createFileLink } from '../storage-access/links.js';
import { STORAGE_MOUNT } from '../storage-access/mounts.js';
import { queryValue } from '../http/query.js';
import { parseBody } from '../http/request.js';
import type { SessionClaims, Sessions } from '../storage-access/sessions.js';
import { shareRoomUrl } from '../storage-access/share-rooms.js';
import type { TokenSigner } from '../storage-access/signed-tokens.js';
import { readLoginForm, storageHome } from '../storage-access/storage-login.js';
import { devicePath, parseMountedPath } from '../storage-access/storage-path.js';
import { type StorageRequest, StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { PUBLIC_URL, RPC, SESSIONS, SIGNER } from '../http/tokens.js';
import { html, type SafeHtml } from './html.js';
import { breadcrumb, type Crumb, folderEntries, folderRow, PAGE_PARAM } from './listing.js';
import { LOGIN_PAGE } from './login-page.js';
import { csrfField, csrfToken, isFormPost, prefersHtml, sendErrorPage, sendPage, validCsrf, when } from './page.js';

/** The day (UTC, `YYYY-MM-DD`) a room open "until the end of a day" is last open: the date input's value. */
const lastDay = (expires: number) => new Date((expires - 1) * 1000).toISOString().slice(0, 10);

interface Viewer {
  user: AuthenticatedUser;
  home: string;
  csrf: string;
  nav: SafeHtml;
}

@Injectable()
export class StoragePages implements NestMiddleware {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SIGNER) private readonly signer: TokenSigner,
    @Inject(SESSIONS) private readonly sessions: Sessions,
    @Inject(PUBLIC_URL) private readonly publicUrl: string,
    private readonly guard: StorageUserGuard,
  ) {}

  /** The user, as the JSON routes' guard decides; null (after redirecting to the login page) without a valid login. */
  private async viewer(req: Request, res: Response): Promise<{ viewer: Viewer; session: SessionClaims | null } | null> {
    try {
      await this.guard.authenticate(req, res);
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) {
        res.removeHeader('WWW-Authenticate');
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(303, LOGIN_PAGE);
        return null;
      }
      throw error;
    }
    const user = (req as StorageRequest).storageUser!;
    const session = await this.sessions.current(req);
    const home = storageHome(user);
    const csrf = session ? csrfToken(this.signer, session) : '';
    const nav = html`<nav aria-label="Account"><ul><li><a href="${home}">My storage</a></li><li><a href="${home}shares">Share rooms</a></li><li><span class="muted">${user.username}</span></li>${session ? html`<li><form class="inline" method="post" action="${home}logout">${csrfField(csrf)}<button type="submit" class="secondary">Log out</button></form></li>` : ''}</ul></nav>`;
    return { viewer: { user, home, csrf, nav }, session };
  }

  use(req: Request, res: Response, next: NextFunction): Promise<void> | void {
    if (req.method === 'GET' || req.method === 'HEAD') return this.get(req, res, next);
    if (req.method === 'POST') return this.post(req, res, next);
    next();
  }

  private async get(req: Request, res: Response, next: NextFunction): Promise<void> {
    // a session extension opens one file, as bytes or JSON: never a page of the owner's storage
    if (!prefersHtml(req) || queryValue(req, 'se') !== undefined) return next();
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    const format = queryValue(req, 'format');
    const isShares = device === 'shares' && !folder && rest.length === 0;
    const isVersions = !folder && rest.length > 0 && format === 'version_info';
    const isFolder = folder && format === undefined;
    if (device === 'logout' && rest.length === 0 && !folder) return next();
    if (!isShares && !isVersions && !isFolder) return next();
    let viewer: Viewer | undefined;
    try {
      const who = await this.viewer(req, res);
      if (!who) return;
      viewer = who.viewer;
      if (isShares) return await this.rooms(res, viewer);
      if (isVersions) return await this.versions(res, viewer, device, rest);
      if (!device) return await this.root(res, viewer);
      return await this.folder(req, res, viewer, device, rest);
    } catch (error) {
      sendErrorPage(res, error, { private: true, nav: viewer?.nav });
    }
  }

  private async post(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!isFormPost(req) || !prefersHtml(req)) return next();
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    const isShares = device === 'shares' && !folder && rest.length === 0;
    const isLogout = device === 'logout' && !folder && rest.length === 0;
    const isFile = !folder && !!device && rest.length > 0;
    if (!isShares && !isLogout && !isFile) return next();
    let viewer: Viewer | undefined;
    try {
      const form = await readLoginForm(req);
      const who = await this.viewer(req, res);
      if (!who) return;
      viewer = who.viewer;
      if (!validCsrf(this.signer, who.session, form.csrf)) {
        return sendPage(
          res,
          html`<h1>Form expired</h1><p class="error" role="alert">This form is no longer valid (it was not sent from your current session). Go back, reload the page and try again.</p>`,
          { title: 'Form expired', private: true, nav: viewer.nav, status: 403 },
        );
      }
      if (isLogout) {
        await this.sessions.close(req, res);
        res.setHeader('Cache-Control', 'no-store');
        return res.redirect(303, `${LOGIN_PAGE}?logged_out`);
      }
      if (isShares) return await this.writeRoom(req, res, viewer, form);
      return await this.shareFile(req, res, viewer, device, rest);
    } catch (error) {
      sendErrorPage(res, error, { private: true, nav: viewer?.nav });
    }
  }

  private async root(res: Response, v: Viewer): Promise<void> {
    const root = await this.rpc.call<StorageRoot>(Subjects.storage.root, { userId: v.user.userId });
    const quota = root.user.quota_bytes;
    const body = html`<h1>My storage</h1>
<p class="muted">${humanSize(root.user.bytes_stored)} stored${quota === null ? '' : html` of ${humanSize(quota)}`}</p>
<h2>Devices</h2>
${
  root.devices.length
    ? html`<ul class="entries">${root.devices.map((d) =>
        folderRow(
          d.name,
          v.home + dirPair(d.name)[1],
          html`${d.sysplatform} · last login ${when(d.lastlogin)} · last backup ${when(d.lastcommit)}`,
        ),
      )}</ul>`
    : html`<p class="muted">No device has backed up yet.</p>`
}`;
    sendPage(res, body, { title: 'My storage', private: true, nav: v.nav });
  }

  private crumbs(v: Viewer, names: string[]): { crumbs: Crumb[]; href: string } {
    let href = v.home;
    const crumbs: Crumb[] = [{ label: 'My storage', href }];
    names.forEach((name, i) => {
      href += dirPair(name)[1];
      crumbs.push(i === names.length - 1 ? { label: name } : { label: name, href });
    });
    return { crumbs, href };
  }

  private async folder(req: Request, res: Response, v: Viewer, device: string, rest: string[]): Promise<void> {
    const cursor = queryValue(req, PAGE_PARAM);
    const page = await this.rpc.call<FolderPage>(Subjects.storage.listFolder, {
      userId: v.user.userId,
      device,
      path: devicePath(rest, true),
      cursor,
      limit: listingPageSize(),
    });
    const names = [device, ...rest];
    const { crumbs, href } = this.crumbs(v, names);
    const here = names[names.length - 1];
    const actions = (file: FileObject) =>
      html`<a href="${href + file.url}?format=version_info">Versions (${file.versions ?? 1})</a>${
        v.user.sharing_enabled && v.csrf
          ? html`<form class="inline" method="post" action="${href + file.url}">${csrfField(v.csrf)}<button type="submit" class="secondary" aria-label="${`Share ${file.name}`}">Share</button></form>`
          : ''
      }`;
    const body = html`${breadcrumb(crumbs)}
<h1>${here}</h1>
<div class="toolbar"><a class="button" href="${href}?format=zip" download>Download folder as zip</a></div>
${folderEntries(page, href, actions)}`;
    sendPage(res, body, { title: here, private: true, nav: v.nav });
  }

  private async versions(res: Response, v: Viewer, device: string, rest: string[]): Promise<void> {
    const versions = await this.rpc.call<FileVersionInfo[]>(Subjects.storage.fileVersions, {
      userId: v.user.userId,
      device,
      path: devicePath(rest, false),
    });
    const { crumbs } = this.crumbs(v, [device, ...rest]);
    const folderHref = this.crumbs(v, [device, ...rest.slice(0, -1)]).href;
    const name = rest[rest.length - 1];
    const rows = [...versions].reverse().map((file) => {
      const object = fileObject(file, 'version');
      return html`<li><span class="name"><a href="${folderHref + object.url}" download>Version ${file.version + 1}</a></span><span class="meta">${humanSize(file.size)} · modified ${when(file.mtime)}</span></li>`;
    });
    const body = html`${breadcrumb(crumbs)}
<h1>Versions of ${name}</h1>
<ul class="entries">${rows}</ul>`;
    sendPage(res, body, { title: `Versions of ${name}`, private: true, nav: v.nav });
  }

  private async shareFile(req: Request, res: Response, v: Viewer, device: string, rest: string[]): Promise<void> {
    const path = await createFileLink(
      this.rpc,
      this.signer,
      v.user,
      device,
      devicePath(rest, false),
      requestedVersion(req),
    );
    const absolute = `${this.publicUrl || `${req.protocol}://${req.get('host') ?? 'localhost'}`}${path}`;
    const name = rest[rest.length - 1];
    const body = html`<h1>Link to ${name}</h1>
<p>Anyone with this link can download the file for 3 days.</p>
<label for="share-link">Link</label>
<input type="url" id="share-link" readonly value="${absolute}">
<p class="toolbar"><button type="button" data-copy="share-link" hidden>Copy link</button><a href="${absolute}">Open link</a></p>
<p><a href="${this.crumbs(v, [device, ...rest.slice(0, -1)]).href}">Back to the folder</a></p>`;
    sendPage(res, body, { title: `Link to ${name}`, private: true, nav: v.nav, scripts: ['copy.js'] });
  }

  private async rooms(res: Response, v: Viewer, state: { error?: string; status?: number } = {}): Promise<void> {
    const shares = await this.rpc.call<UserShareRooms>(Subjects.storage.listShares, { userId: v.user.userId });
    const action = `${v.home}shares`;
    const fields = (
      id: string,
      room?: { name: string; description: string; dirs: string[]; expires: number | null },
    ) => html`
<label for="${id}-name">Name</label><input type="text" id="${id}-name" name="room_name" required value="${room?.name ?? ''}">
<label for="${id}-description">Description</label><textarea id="${id}-description" name="room_description">${room?.description ?? ''}</textarea>
<label for="${id}-dirs">Folders (one per line, as <code>device/folder/</code>)</label><textarea id="${id}-dirs" name="dirs" required>${(room?.dirs ?? []).join('\n')}</textarea>
<label for="${id}-expires">Open until (the end of this day, UTC; empty: always)</label><input type="date" id="${id}-expires" name="expires" value="${room?.expires ? lastDay(room.expires) : ''}">`;
    const rooms = shares.rooms.map((room, i) => {
      const url = shareRoomUrl(this.publicUrl, shares.share_id, room.room_key);
      const q = `?room_key=${encodeURIComponent(room.room_key)}`;
      return html`<section class="card" aria-labelledby="room-${i}">
<h3 id="room-${i}"><a href="${url}">${room.name || room.room_key}</a></h3>
<p class="muted">${room.files} files in ${room.folders} folders${room.password_required ? ' · protected by a password' : ''}${room.expires ? html` · open until ${when(room.expires)}` : ''}${room.enabled ? '' : ' · disabled by your provider'}</p>
<details><summary>Edit</summary>
<form method="post" action="${action + q}">${csrfField(v.csrf)}${fields(`edit-${i}`, room)}<p><button type="submit">Save</button></p></form>
</details>
<details><summary>Password</summary>
<form method="post" action="${action + q}">${csrfField(v.csrf)}<input type="hidden" name="action" value="password">
<label for="password-${i}">${room.password_required ? 'New room password' : 'Room password'} (visitors must give it)</label><input type="password" id="password-${i}" name="password" autocomplete="new-password" required minlength="8">
<p><button type="submit">${room.password_required ? 'Change password' : 'Set password'}</button></p></form>
${room.password_required ? html`<form method="post" action="${action + q}">${csrfField(v.csrf)}<input type="hidden" name="action" value="remove_password"><button type="submit" class="secondary" aria-label="${`Remove the password of ${room.name || room.room_key}`}">Remove password</button></form>` : ''}
</details>
<form method="post" action="${action + q}">${csrfField(v.csrf)}<input type="hidden" name="action" value="delete"><button type="submit" class="danger" aria-label="${`Delete ${room.name || room.room_key}`}">Delete</button></form>
</section>`;
    });
    const body = html`<h1>Share rooms</h1>
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
${rooms.length ? rooms : html`<p class="muted">You have no share rooms yet.</p>`}
<h2>New share room</h2>
<form method="post" action="${action}" class="card">${csrfField(v.csrf)}${fields('new')}<p><button type="submit">Create share room</button></p></form>`;
    sendPage(res, body, { title: 'Share rooms', private: true, nav: v.nav, status: state.status });
  }

  private async writeRoom(req: Request, res: Response, v: Viewer, form: Record<string, string>): Promise<void> {
    const roomKey = queryValue(req, 'room_key');
    const dirs = (form.dirs ?? '')
      .split(/\r?\n/)
      .map((d) => d.trim())
      .filter(Boolean);
    try {
      if (roomKey !== undefined && form.action === 'delete') {
        await this.rpc.call(Subjects.storage.deleteShare, { userId: v.user.userId, room_key: roomKey });
      } else if (roomKey !== undefined && (form.action === 'password' || form.action === 'remove_password')) {
        const changes = parseBody(UpdateShareRoomBody, {
          password: form.action === 'password' ? (form.password ?? '') : null,
        });
        if (changes.password === null && form.action === 'password')
          throw badRequest('give the new password', ['password']);
        await this.rpc.call<OwnShareRoom>(Subjects.storage.updateShare, {
          userId: v.user.userId,
          room_key: roomKey,
          changes,
        });
      } else if (roomKey !== undefined) {
        const changes = parseBody(UpdateShareRoomBody, {
          room_name: form.room_name,
          room_description: form.room_description ?? '',
          dirs,
          expires: form.expires ?? '',
        });
        await this.rpc.call<OwnShareRoom>(Subjects.storage.updateShare, {
          userId: v.user.userId,
          room_key: roomKey,
          changes,
        });
      } else {
        const body = parseBody(
          ShareRoomBody,
          {
            room_name: form.room_name,
            room_description: form.room_description ?? '',
            dirs,
            expires: form.expires || undefined,
          },
          { required: true },
        );
        await this.rpc.call<OwnShareRoom>(Subjects.storage.createShare, { userId: v.user.userId, ...body });
      }
    } catch (error) {
      if (error instanceof DomainError && error.status < 500 && error.status !== 401)
        return this.rooms(res, v, { error: error.message, status: error.status });
      throw error;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `${v.home}shares`);
  }
}
