/**
 * Index management of the embedded document store (sqlite.ts): what this connection knows of a
 * collection's table and its indexed paths, and an index the read models declare made an SQLite
 * expression index on `json_extract(doc, '$.field')`.
 */
import type { SqliteDatabase, SqliteStatement } from '@burrow/sqlite';
import { isLoose } from './filter.js';
import { DuplicateKeyError, type IndexOptions, type SortSpec } from './port.js';
import { extract, quote, tableOf } from './sqlite-sql.js';

/** A collection's table as this connection knows it. */
export interface TableInfo {
  /** its indexed paths */
  paths: Set<string>;
  /** the same, split at the dots (made on first use) */
  keys: string[][] | null;
  /** its insert-or-replace statement (prepared on first use) */
  upsert: SqliteStatement | null;
}

/** What index management needs of the store: its cached statements and its collection tables (made on first use). */
export interface IndexHost {
  statement(sql: string): SqliteStatement;
  table(collection: string): TableInfo;
}

/** The SQLite name of the index `ensureIndex(spec, options)` makes on `collection`. */
function indexName(collection: string, spec: SortSpec, options: IndexOptions): string {
  return `i:${collection}:${JSON.stringify(spec)}${options.unique ? ':unique' : ''}${options.sparse ? ':sparse' : ''}`;
}

/**
 * Makes the index (if new) and flags the documents stored before that SQL cannot judge on its
 * paths (`loose`). A sparse index is a partial one (`WHERE <field> IS NOT NULL`, each field): SQLite
 * uses it for a query whose condition on the field implies a value there (`=`, a range).
 */
export function ensureSqliteIndex(
  db: SqliteDatabase,
  host: IndexHost,
  collection: string,
  spec: SortSpec,
  options: IndexOptions,
): void {
  const fields = Object.keys(spec);
  const t = tableOf(collection);
  const known = host.table(collection);
  const name = quote(indexName(collection, spec, options));
  const columns = fields.map((f) => `${extract(f)}${spec[f] === -1 ? ' DESC' : ''}`).join(', ');
  const where = options.sparse ? ` WHERE ${fields.map((f) => `${extract(f)} IS NOT NULL`).join(' AND ')}` : '';
  db.transaction(() => {
    try {
      db.exec(`CREATE ${options.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${t} (${columns})${where}`);
    } catch (error) {
      throw duplicateKey(collection, error);
    }
    const added = fields.filter((f) => !known.paths.has(f));
    host
      .statement('INSERT OR IGNORE INTO _indexes (collection, fields, is_unique) VALUES (?, ?, ?)')
      .run(collection, JSON.stringify(fields), options.unique ? 1 : 0);
    if (added.length === 0) return;
    for (const f of added) known.paths.add(f);
    known.keys = null;
    // documents stored before this path was indexed: flag the ones SQL cannot judge on it
    const flag = host.statement(`UPDATE ${t} SET loose = 1 WHERE id = ?`);
    for (const row of host.statement(`SELECT id, doc FROM ${t} WHERE loose IS NULL`).all() as {
      id: string;
      doc: string;
    }[]) {
      const doc = JSON.parse(row.doc);
      if (added.some((f) => isLoose(doc, f))) flag.run(row.id);
    }
  });
}

/**
 * Drops the index `ensureSqliteIndex(spec, options)` made, if any. Its fields stay known as
 * indexed paths to this connection (their loose flags kept up: harmless) and, when another index
 * of the collection has the same fields, in `_indexes`; otherwise the next connection plans
 * queries on them in JavaScript, as for any path without an index.
 */
export function dropSqliteIndex(
  db: SqliteDatabase,
  host: IndexHost,
  collection: string,
  spec: SortSpec,
  options: IndexOptions,
): void {
  const fields = JSON.stringify(Object.keys(spec));
  const prefix = `i:${collection}:`;
  db.transaction(() => {
    db.exec(`DROP INDEX IF EXISTS ${quote(indexName(collection, spec, options))}`);
    const others = (
      host
        .statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?")
        .all(tableOf(collection)) as { name: string }[]
    )
      .map((r) => r.name)
      .filter((n) => n.startsWith(prefix))
      .map((n) =>
        n
          .slice(prefix.length)
          .replace(/:sparse$/, '')
          .replace(/:unique$/, ''),
      );
    const sameFields = others.some((s) => {
      try {
        return JSON.stringify(Object.keys(JSON.parse(s) as SortSpec)) === fields;
      } catch {
        return false;
      }
    });
    if (!sameFields) host.statement('DELETE FROM _indexes WHERE collection = ? AND fields = ?').run(collection, fields);
  });
}

/** A unique index's refusal as the port's DuplicateKeyError; any other error as it is. */
export function duplicateKey(collection: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return new DuplicateKeyError(collection, (error as Error).message);
  return error;
}
