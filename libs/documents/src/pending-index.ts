/** An index of a unit of work's pending documents by their value at one path (write-behind.ts). */
import { getPathValues } from './filter.js';
import type { Document } from './port.js';

/** A filter value an index of pending documents can answer (equality with a scalar). */
export const isIndexable = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * The batch's documents by their value at one path, so an equality `find` does not test every
 * pending document (a rebuild's batch holds thousands, and a projection may look up what the same
 * batch wrote on every event). A superset: ids are only ever added (a rewrite or a rollback leaves
 * the old key behind), and every candidate is checked against the entry and the filter. A
 * document whose value there is not a single scalar (missing, null, an array, an object, or
 * reached through an array) is a candidate for every value (`loose`).
 */
export interface PendingIndex {
  byValue: Map<string | number | boolean, string[]>;
  loose: string[];
}

export function addToPendingIndex(index: PendingIndex, path: string, id: string, doc: Document): void {
  const values = getPathValues(doc, path);
  if (values.length !== 1 || !isIndexable(values[0])) {
    index.loose.push(id);
    return;
  }
  const ids = index.byValue.get(values[0]);
  if (ids) ids.push(id);
  else index.byValue.set(values[0], [id]);
}
