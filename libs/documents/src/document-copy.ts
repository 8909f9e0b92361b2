/**
 * The unit of work's copy of a document it is handed: one walk that copies, measures and checks it
 * (see `copyDocument`). Kept apart from the unit of work itself (write-behind.ts), which only calls it.
 */
import type { Document } from './port.js';

/**
 * The unit of work's own copy of a document (as `cloneJson`) and about how many bytes it makes as
 * JSON, in one walk that also does `documentProblem`'s check: null for a document the port refuses
 * (an array directly inside an array).
 */
export function copyDocument(doc: Document): { doc: Document; bytes: number } | null {
  copied = 0;
  try {
    return { doc: copyValue(doc, false) as Document, bytes: copied };
  } catch (error) {
    if (error === NESTED_ARRAY) return null;
    throw error;
  }
}
let copied = 0;
const NESTED_ARRAY = new Error('an array directly inside an array');

function copyValue(value: unknown, inArray: boolean): unknown {
  if (value === null || typeof value !== 'object') {
    copied += typeof value === 'string' ? value.length + 2 : 6;
    return value;
  }
  if (Array.isArray(value)) {
    if (inArray) throw NESTED_ARRAY;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i], true);
    copied += 2 + value.length;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    copied += key.length + 4;
    out[key] = copyValue(v, false);
  }
  copied += 2;
  return out;
}
