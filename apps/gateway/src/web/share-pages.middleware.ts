/**
 * The share-room page: a public room (and each folder below it) as HTML, for requests that prefer
 * `text/html` (browsers opening a room's friendly URL). A middleware on `GET /share/...`
 * (WebModule), run before routing; everything else (JSON clients, files, previews, `?format=zip`)
 * goes on to the share interface's route. The room, its folder labels and the listing come from the same helpers and bus
 * subjects as the JSON routes (`openRoom`, `roomFolders`, `roomFolderAt`, `storage.listFolder`).
 *
 * A room with a password shows a password form instead; the form posts (urlencoded) to the room's
 * root (`POST /share/<b32>/<key>/`, also this middleware), which sets the room cookie and sends the
 * browser back (303) to where it was, or shows the form again with the error (401; 429 while
 * throttled). Any other POST goes on to the route (405: rooms are read-only).
 */
import { listingPageSize } from '../transfers/listing-page.js';
import { DomainError, type FolderPage, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { dirPair, humanSize } from '../transfers/catalog-views.js';
import { SHARE_MOUNT } from '../storage-access/mounts.js';
import { queryValue } from '../http/query.js';
import { readFormBody } from '../http/form-body.js';
import { isPasswordRequired, roomCookiePath, setRoomCookie } from '../storage-access/room-access.js';
import { openRoom, roomFolderAt, roomFolders } from '../storage-access/share-rooms.js';
import type { TokenSigner } from '../storage-access/signed-tokens.js';
import { parseMountedPath } from '../storage-access/storage-path.js';
import { RPC, SIGNER } from '../http/tokens.js';
import { html } from './html.js';
import { breadcrumb, type Crumb, folderEntries, folderRow, PAGE_PARAM } from './listing.js';
import { isFormPost, prefersHtml, sendErrorPage, sendPage } from './page.js';

/** The path of the page asked for below its room's root (`Photos/2024/`), as the request spelled it. */
const belowRoot = (req: Request) => (req.originalUrl ?? req.url).split('?')[0].split('/').slice(4).join('/');

@Injectable()
export class SharePages implements NestMiddleware {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SIGNER) private readonly signer: TokenSigner,
  ) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!prefersHtml(req) || queryValue(req, 'format') !== undefined) return next();
    const { segments, folder } = parseMountedPath(req, SHARE_MOUNT);
    if (!folder) return next();
    if (req.method === 'POST') {
      // only the room root's password form; anything else posted here is the route's (405)
      if (!isFormPost(req) || segments.length !== 2) return next();
      return this.unlock(req, res, segments);
    }
    try {
      await this.render(req, res, segments);
    } catch (error) {
      if (isPasswordRequired(error)) return this.passwordForm(req, res, { back: belowRoot(req) });
      sendErrorPage(res, error, { private: false });
    }
  }

  /** The room's password form (again, with the error). Nothing of the room is shown: not even its name. */
  private passwordForm(req: Request, res: Response, state: { error?: string; status?: number; back?: string }): void {
    const body = html`<h1>This share room is protected</h1>
<p>Enter the room's password to see what it shares.</p>
${state.error ? html`<p class="error" role="alert" id="room-password-error">${state.error}</p>` : ''}
<form method="post" action="${roomCookiePath(req)}" class="card">
<input type="hidden" name="back" value="${state.back ?? ''}">
<label for="room-password">Room password</label>
<input type="password" id="room-password" name="password" autocomplete="current-password" required${state.error ? html` aria-describedby="room-password-error"` : ''}>
<p><button type="submit">Open the room</button></p>
</form>`;
    sendPage(res, body, { title: 'Protected share room', private: true, status: state.status ?? 401 });
  }

  /** The password form's post: the room cookie and back to the page asked for, or the form again. */
  private async unlock(req: Request, res: Response, segments: string[]): Promise<void> {
    const [shareSegment, roomKey] = segments;
    let back = '';
    try {
      const form = await readFormBody(req);
      // back to a page of this room only (a relative path below it), never elsewhere
      back =
        /^[^/\\?#][^?#]*\/$/.test(form.back ?? '') && !(form.back ?? '').split('/').some((s) => s === '..' || s === '.')
          ? form.back
          : '';
      const room = await openRoom(this.rpc, req, this.signer, shareSegment, roomKey, { password: form.password ?? '' });
      setRoomCookie(req, res, this.signer, room);
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, roomCookiePath(req) + back);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) return sendErrorPage(res, error, { private: false });
      const retry = error.body.retry_after ?? res.getHeader('Retry-After');
      const message =
        error.status === 429
          ? `Too many wrong passwords. Wait ${retry ?? 'a while'}${retry ? ' seconds' : ''} and try again.`
          : 'Wrong password.';
      this.passwordForm(req, res, { error: message, status: error.status, back });
    }
  }

  private async render(req: Request, res: Response, segments: string[]): Promise<void> {
    const [shareB32, roomKey, label, ...rest] = segments;
    const room = await openRoom(this.rpc, req, this.signer, shareB32, roomKey);
    const folders = roomFolders(room.dirs);
    const title = room.name || roomKey;
    const base = `/${SHARE_MOUNT}/${shareB32}/${encodeURIComponent(roomKey)}/`;
    const header = html`<h1>${title}</h1>${room.description ? html`<p class="desc">${room.description}</p>` : ''}
<p class="muted">Shared by ${room.owner_name} · ${room.files} files · ${humanSize(room.bytes)}</p>`;
    if (label === undefined) {
      const body = html`${header}
<div class="toolbar"><a class="button" href="${base}?format=zip" download>Download everything as zip</a></div>
<h2>Folders</h2>
${folders.length ? html`<ul class="entries">${folders.map((f) => folderRow(f.label, base + dirPair(f.label)[1]))}</ul>` : html`<p class="muted">This room shares no folders.</p>`}`;
      return sendPage(res, body, { title, private: false });
    }
    const { top, path } = roomFolderAt(folders, label, rest);
    const cursor = queryValue(req, PAGE_PARAM);
    const page = await this.rpc.call<FolderPage>(Subjects.storage.listFolder, {
      userId: room.userId,
      device: top.device,
      path,
      cursor,
      limit: listingPageSize(),
    });
    const names = [label, ...rest];
    let href = base;
    const crumbs: Crumb[] = [{ label: title, href: base }];
    names.forEach((name, i) => {
      href += dirPair(name)[1];
      crumbs.push(i === names.length - 1 ? { label: name } : { label: name, href });
    });
    const here = names[names.length - 1];
    const body = html`${header}
${breadcrumb(crumbs)}
<h2>${here}</h2>
<div class="toolbar"><a class="button" href="${href}?format=zip" download>Download folder as zip</a></div>
${folderEntries(page, href)}`;
    sendPage(res, body, { title: `${here} · ${title}`, private: false });
  }
}
