/**
 * GET and HEAD: a file's bytes streamed from the blob store with Range, If-Range, ETag (the content
 * hash) and the other conditionals, exactly as the storage interface sends downloads. A
 * collection answers a short note: WebDAV clients list it with PROPFIND.
 */
import { sendBlob } from '../transfers/download.js';
import type { DavCall } from './context.js';
import { etagOf, readPath, readRoot } from './resources.js';

const COLLECTION_NOTE =
  'This is a Burrow WebDAV folder: open it with a WebDAV client (Finder, Explorer, Files, rclone).\n';

export async function get(call: DavCall): Promise<void> {
  const { target, res } = call;
  if (target.device === null) await readRoot(call);
  else {
    // the resource alone: a download has no use for the quota figures
    const stat = await readPath(call, target, undefined, { figures: false });
    if (stat.kind === 'file') {
      const f = stat.file;
      return sendBlob(
        call.req,
        res,
        call.blobs,
        { blob: f.blob, size: f.size, mtime: f.mtime, name: f.name, checksums: f.checksums },
        { disposition: 'attachment', etag: etagOf(f.blob) },
      );
    }
  }
  res
    .status(200)
    .set({ 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(COLLECTION_NOTE)) });
  res.end(call.req.method === 'HEAD' ? undefined : COLLECTION_NOTE);
}
