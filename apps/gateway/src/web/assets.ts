/**
 * The pages' static files, served from memory by the gateway: one small stylesheet (responsive
 * down to phone width, contrast at least 4.5:1), the copy button's script (pages work without it),
 * and two icons. Immutable per build: cached for a day.
 */
import { notFound } from '@burrow/contracts';
import { Controller, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { Route } from '../http/route.js';
import { ASSET_MOUNT } from './page.js';
import { WEB_ROUTES } from './web.routes.js';

const STYLE = `
:root{--fg:#1b1f24;--muted:#4d5560;--bg:#fff;--line:#d0d7de;--accent:#0b57d0;--err:#a4161a;--soft:#f3f5f8}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus,button:focus,input:focus,textarea:focus{outline:3px solid #f0a500;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:1}
.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
.brand{font-weight:700}
.top nav ul{display:flex;flex-wrap:wrap;gap:8px 16px;list-style:none;margin:0;padding:0;align-items:center}
main{max-width:960px;margin:0 auto;padding:16px}
.foot{max-width:960px;margin:0 auto;padding:8px 16px;color:var(--muted);font-size:14px}
h1{font-size:1.6rem;margin:.2em 0 .4em;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:1.2em 0 .4em}
.muted{color:var(--muted)}
.desc{white-space:pre-line;overflow-wrap:anywhere}
.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:4px;margin:0 0 12px;padding:0}
.crumbs li+li::before{content:"/";margin-right:4px;color:var(--muted)}
.entries{list-style:none;margin:0;padding:0;border-top:1px solid var(--line)}
.entries li{display:flex;flex-wrap:wrap;align-items:center;gap:4px 12px;padding:8px 4px;border-bottom:1px solid var(--line)}
.entries .thumb{width:48px;height:48px;object-fit:cover;flex:none}
.entries .name{flex:1 1 14rem;min-width:0;overflow-wrap:anywhere}
.entries .meta{color:var(--muted);font-size:14px}
.entries .actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
form.inline{display:inline}
button,.button{font:inherit;padding:6px 12px;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--err);border-color:var(--err)}
label{display:block;font-weight:600;margin:10px 0 4px}
input[type=text],input[type=password],input[type=url],textarea{font:inherit;width:100%;max-width:32rem;padding:6px 8px;border:1px solid #6e7781;border-radius:4px}
textarea{min-height:5em}
.error{color:var(--err);font-weight:600}
.notice{background:var(--soft);border-left:4px solid var(--accent);padding:8px 12px}
.card{border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:12px 0}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0 16px}
@media (max-width:480px){main{padding:10px}.entries .meta{flex-basis:100%;padding-left:60px}h1{font-size:1.3rem}}
`;

const COPY_JS = `document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var field = document.getElementById(button.getAttribute('data-copy'));
      if (!field) return;
      field.select();
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
      else { document.execCommand('copy'); done(); }
    });
  });
});
`;

const FILE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><path d="M12 4h17l9 9v31H12z" fill="#eef1f5" stroke="#4d5560" stroke-width="2"/><path d="M29 4v9h9" fill="none" stroke="#4d5560" stroke-width="2"/></svg>`;
const FOLDER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><path d="M4 10h15l4 5h21v25H4z" fill="#f5c451" stroke="#7a5a00" stroke-width="2"/></svg>`;

const ASSETS: Record<string, { type: string; body: string }> = {
  'style.css': { type: 'text/css; charset=utf-8', body: STYLE },
  'copy.js': { type: 'text/javascript; charset=utf-8', body: COPY_JS },
  'file.svg': { type: 'image/svg+xml', body: FILE_SVG },
  'folder.svg': { type: 'image/svg+xml', body: FOLDER_SVG },
};
const ETAGS = Object.fromEntries(
  Object.entries(ASSETS).map(([name, a]) => [
    name,
    `"${createHash('sha256').update(a.body).digest('base64url').slice(0, 22)}"`,
  ]),
);

export const FILE_ICON = `/${ASSET_MOUNT}/file.svg`;
export const FOLDER_ICON = `/${ASSET_MOUNT}/folder.svg`;

@Controller()
export class WebAssetsController {
  @Route(WEB_ROUTES.asset)
  asset(@Param('name') name: string, @Res() res: Response): void {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) throw notFound(`no asset ${name}`);
    res.set({
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=86400',
      ETag: ETAGS[name],
      'X-Content-Type-Options': 'nosniff',
    });
    if (req304(res, ETAGS[name])) return;
    res.send(asset.body);
  }
}

function req304(res: Response, etag: string): boolean {
  if (res.req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return true;
  }
  return false;
}
