/**
 * Paths inside a device, one rule for the gateway (which decodes URLs once) and the catalog: `/`
 * separated segments, no empty, `.` or `..` segment, no NUL, bounded lengths and depth. A folder
 * path ends with `/` (the device's root folder is the empty path ''); a file path does not.
 *
 * A name is any text a POSIX or Windows file system can hold but `/` and NUL: a backup that
 * refused a legal name would silently leave that file unprotected. Backslashes, control
 * characters, quotes and the characters Windows reserves are all names on Linux and macOS. What is
 * refused, and why, is in docs/api.md ("File names").
 */
import { badRequest } from '../errors.js';
import { PATH_MAX_BYTES, PATH_MAX_DEPTH, PATH_SEGMENT_MAX_BYTES } from './limits.js';

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

/** Why a segment is not acceptable, or null. */
export function segmentProblem(segment: string): string | null {
  if (segment === '' || segment === '.' || segment === '..') return 'empty, "." and ".." segments are not allowed';
  if (segment.includes('\0')) return 'NUL characters are not allowed';
  if (segment.includes('/')) return 'a name cannot contain a slash';
  if (utf8Length(segment) > PATH_SEGMENT_MAX_BYTES) return `a name is at most ${PATH_SEGMENT_MAX_BYTES} bytes`;
  return null;
}

/** The segments of a path (folder or file), validated; a 400 naming `field` otherwise. */
export function pathSegments(path: string, field = 'path'): string[] {
  if (utf8Length(path) > PATH_MAX_BYTES) throw badRequest(`a path is at most ${PATH_MAX_BYTES} bytes`, [field]);
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  if (segments.length > PATH_MAX_DEPTH) throw badRequest(`a path is at most ${PATH_MAX_DEPTH} levels deep`, [field]);
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) throw badRequest(`invalid path: ${problem}`, [field]);
  }
  return segments;
}

/** A folder path in canonical form: '' (the device root) or segments joined by `/` with a trailing `/`. */
export function folderPath(path: string, field = 'path'): string {
  const segments = pathSegments(path, field);
  return segments.length ? `${segments.join('/')}/` : '';
}

/** A file path in canonical form (no trailing slash); a 400 for the empty path. */
export function filePath(path: string, field = 'path'): string {
  if (path.endsWith('/')) throw badRequest('a file path does not end with /', [field]);
  const segments = pathSegments(path, field);
  if (!segments.length) throw badRequest('a file path needs a name', [field]);
  return segments.join('/');
}

/** The folder holding a file or folder path ('' for the device root). */
export function parentOf(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? '' : trimmed.slice(0, slash + 1);
}

/** The last segment of a file or folder path. */
export function nameOf(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Every folder from the device root down to the one holding `path`: '', 'a/', 'a/b/'. */
export function ancestorsOf(path: string): string[] {
  const out = [''];
  const parent = parentOf(path);
  if (!parent) return out;
  let at = 0;
  for (;;) {
    const next = parent.indexOf('/', at);
    if (next < 0) return out;
    out.push(parent.slice(0, next + 1));
    at = next + 1;
  }
}
