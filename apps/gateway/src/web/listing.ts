/**
 * What the share-room page and the storage browser both show: a breadcrumb and a folder's entries
 * (subfolders, then files with a 48 px thumbnail when a preview exists, size, date and download
 * link). URLs come from the JSON interface's own builders (`dirPair`, `fileObject`), so the pages
 * link exactly where the JSON objects point.
 */
import type { FolderPage } from '@burrow/contracts';
import { dirPair, fileObject, type FileObject } from '../transfers/catalog-views.js';
import { FILE_ICON, FOLDER_ICON } from './assets.js';
import { html, type SafeHtml } from './html.js';
import { size, when } from './page.js';

export interface Crumb {
  label: string;
  /** absolute path of the folder; the last crumb (the current page) has none */
  href?: string;
}

export function breadcrumb(crumbs: Crumb[]): SafeHtml {
  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${crumbs.map((c) =>
    c.href
      ? html`<li><a href="${c.href}">${c.label}</a></li>`
      : html`<li><span aria-current="page">${c.label}</span></li>`,
  )}</ol></nav>`;
}

/** Query parameter of the next catalog page (pages show one catalog page at a time). */
export const PAGE_PARAM = 'after';

export function folderRow(label: string, href: string, meta?: SafeHtml): SafeHtml {
  return html`<li><img class="thumb" src="${FOLDER_ICON}" alt="" width="48" height="48"><span class="name"><a href="${href}">${label}</a></span>${meta ? html`<span class="meta">${meta}</span>` : ''}</li>`;
}

export function fileRow(file: FileObject, base: string, actions?: SafeHtml): SafeHtml {
  const thumb = file.preview_48
    ? html`<img class="thumb" src="${base + file.preview_48}" alt="" width="48" height="48">`
    : html`<img class="thumb" src="${FILE_ICON}" alt="" width="48" height="48">`;
  return html`<li>${thumb}<span class="name"><a href="${base + file.url}" download>${file.name}</a></span><span class="meta">${size(file.size)} · ${when(file.mtime)}</span>${actions ? html`<span class="actions">${actions}</span>` : ''}</li>`;
}

/**
 * A folder's entries. `base` is the folder's absolute path (ending with `/`); `fileActions` adds
 * controls to each file (the storage browser's versions and share buttons).
 */
export function folderEntries(page: FolderPage, base: string, fileActions?: (file: FileObject) => SafeHtml): SafeHtml {
  const dirs = page.dirs.map((d) => folderRow(d.name, base + dirPair(d.name)[1]));
  const files = page.files.map((f) => {
    const object = fileObject(f, 'listing');
    return fileRow(object, base, fileActions?.(object));
  });
  const empty = dirs.length + files.length === 0 ? html`<p class="muted">This folder is empty.</p>` : '';
  const more = page.next
    ? html`<p><a href="${base}?${PAGE_PARAM}=${encodeURIComponent(page.next)}">More entries</a></p>`
    : '';
  return html`${empty}${dirs.length + files.length ? html`<ul class="entries">${dirs}${files}</ul>` : ''}${more}`;
}
