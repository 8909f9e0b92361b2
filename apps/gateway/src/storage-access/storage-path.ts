/**
 * Paths of the storage and share interfaces, read from the raw URL and decoded exactly once, one
 * segment at a time: an encoded slash (`%2F`) or NUL, an empty, `.` or `..` segment, or bad
 * percent-encoding is a 400, so a path can never escape its root or mean two things. Only slashes
 * at the very end may repeat: `folder//` is `folder/`.
 */
import { badRequest, segmentProblem } from '@burrow/contracts';
import type { Request } from 'express';

export interface ParsedPath {
  /** the decoded segments after the mount */
  segments: string[];
  /** the URL path ended with `/` (a folder or a device) */
  folder: boolean;
}

/** The segments of the request's path after `mount` (e.g. `storage`), decoded once and checked. */
export function parseMountedPath(req: Request, mount: string): ParsedPath {
  return parsePathAfter((req.originalUrl ?? req.url).split('?')[0], mount);
}

/** The same for a raw (still percent-encoded) URL path, e.g. from a WebDAV `Destination` header. */
export function parsePathAfter(raw: string, mount: string): ParsedPath {
  const prefix = `/${mount}/`;
  if (!raw.startsWith(prefix)) return { segments: [], folder: true };
  // a run of slashes at the end is one (the mobile app opens a room as `<room url>` + `/`)
  const rest = raw.slice(prefix.length).replace(/\/{2,}$/, '/');
  const folder = rest === '' || rest.endsWith('/');
  const parts = (folder ? rest.slice(0, -1) : rest).split('/');
  if (rest === '') return { segments: [], folder: true };
  const segments = parts.map((part) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      throw badRequest('the path holds malformed percent-encoding', ['path']);
    }
    const problem = segmentProblem(decoded);
    if (problem) throw badRequest(`invalid path: ${problem}`, ['path']);
    return decoded;
  });
  return { segments, folder };
}

/** `a/b/` or `a/b/c` within a device, from the segments after the device's. */
export const devicePath = (segments: string[], folder: boolean): string =>
  segments.length ? segments.join('/') + (folder ? '/' : '') : '';

/** Percent-encodes one path segment for a URL (slashes included). */
export const encodeSegment = (segment: string): string => encodeURIComponent(segment);
