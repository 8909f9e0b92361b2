/**
 * The share-room page: a public room (and each folder below it) as HTML, for requests that prefer
 * `text/html` (browsers opening a room's friendly URL). A middleware on `GET /share/...`
 * (WebModule), run before routing; everything else (JSON clients, files, previews, `?format=zip`)
 * goes on to the share interface's route. The room, its folder labels and the listing come from the same helpers and bus
 * subjects as the JSON routes (`openRoom`, `roomFolders`, `roomFolderAt`, `storage.listFolder`).
 */
import { listingPageSize } from '../http/listing-page.js';
import { type FolderPage, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { dirPair, humanSize } from '../http/catalog-views.js';
import { SHARE_MOUNT } from '../http/mounts.js';
import { queryValue } from '../http/query.js';
import { openRoom, roomFolderAt, roomFolders } from '../http/share-rooms.js';
import { parseMountedPath } from '../http/storage-path.js';
import { RPC } from '../http/tokens.js';
import { html } from './html.js';
import { breadcrumb, type Crumb, folderEntries, folderRow, PAGE_PARAM } from './listing.js';
import { prefersHtml, sendErrorPage, sendPage } from './page.js';

@Injectable()
export class SharePages implements NestMiddleware {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!prefersHtml(req) || queryValue(req, 'format') !== undefined) return next();
    const { segments, folder } = parseMountedPath(req, SHARE_MOUNT);
    if (!folder) return next();
    try {
      await this.render(req, res, segments);
    } catch (error) {
      sendErrorPage(res, error, { private: false });
    }
  }

  private async render(req: Request, res: Response, segments: string[]): Promise<void> {
    const [shareB32, roomKey, label, ...rest] = segments;
    const room = await openRoom(this.rpc, shareB32, roomKey);
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
    const page = await this.rpc.call<FolderPage>(Subjects.storage.listFolder, { userId: room.userId, device: top.device, path, cursor, limit: listingPageSize() });
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
