/** SQL text of the embedded document store (sqlite.ts): collection tables' names, quoting, paths into a document. */

export const TABLE_PREFIX = 'c:';
export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const tableOf = (collection: string) => quote(TABLE_PREFIX + collection);
/** Paths SQL can reach: identifiers only (a numeric segment is an array index in MongoDB, a key to json_extract). */
export const SIMPLE_PATH = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
export const extract = (path: string) => (path === '_id' ? 'id' : `json_extract(doc, '$.${path}')`);
export const sqlString = (value: string) => `'${value.replace(/'/g, "''")}'`;
