/**
 * The embedded document store's filter translation (see sqlite.ts's header): the port's filter as
 * an SQL condition that only narrows the candidates, and whether it selects exactly the matches.
 */
import type { Filter } from './port.js';
import { extract, SIMPLE_PATH } from './sqlite-sql.js';

/** A value json_extract compares with: booleans come out of JSON as 1 and 0. */
const sqlValue = (v: unknown): unknown => (v === true ? 1 : v === false ? 0 : v);
const isScalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));

export interface Plan {
  sql: string;
  params: unknown[];
  /** the SQL selects exactly the matches: no check in JavaScript needed, counts can be counted by SQL */
  exact: boolean;
  /**
   * When not exact only because of booleans compared on these paths (json_extract makes them 1
   * and 0): exact while no document of the collection has ever held a number there (`exactIn`).
   */
  booleans: string[] | null;
}

/**
 * The SQL condition for `filter`: necessary for a match (a superset of the matches), pushed down
 * only for `_id` and indexed paths (`paths`), where the loose flag covers the documents SQL cannot judge.
 */
export function planFilter(paths: ReadonlySet<string>, filter: Filter, hasLoose: () => boolean): Plan {
  const terms: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  let needsLoose = false;
  const booleans: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    const term =
      key.startsWith('$') || !(key === '_id' || (paths.has(key) && SIMPLE_PATH.test(key)))
        ? null
        : fieldTerm(key, condition);
    if (!term) {
      exact = false;
      continue;
    }
    terms.push(term.sql);
    params.push(...term.params);
    if (term.exact === 'without numbers') booleans.push(key);
    else if (!term.exact) exact = false;
    if (key !== '_id') needsLoose = true;
  }
  if (terms.length === 0) return { sql: '1', params, exact, booleans: null };
  let sql = terms.join(' AND ');
  if (needsLoose && hasLoose()) {
    sql = `(${sql}) OR loose IS NOT NULL`;
    exact = false;
  }
  if (!exact || booleans.length === 0) return { sql, params, exact: exact && booleans.length === 0, booleans: null };
  return { sql, params, exact: false, booleans };
}

/**
 * Exactness of a term: `true`, `false`, or 'without numbers' when it is exact unless a document
 * holds a number in the path (a boolean compared in SQL as 1 or 0).
 */
type TermExactness = boolean | 'without numbers';

/** A condition on one field as SQL, or null when SQL cannot narrow it. */
function fieldTerm(path: string, condition: unknown): { sql: string; params: unknown[]; exact: TermExactness } | null {
  const x = extract(path);
  const isId = path === '_id';
  const byType = (v: unknown): TermExactness =>
    typeof v === 'string' ? true : typeof v === 'boolean' && !isId ? 'without numbers' : false;
  if (!isOperatorObject(condition)) {
    if (condition === null) return isId ? null : { sql: `${x} IS NULL`, params: [], exact: false };
    if (!isScalar(condition)) return null;
    return { sql: `${x} = ?`, params: [sqlValue(condition)], exact: byType(condition) };
  }
  const terms: string[] = [];
  const params: unknown[] = [];
  let exact: TermExactness = true;
  const weaken = (e: TermExactness) => {
    if (e === false || exact === false) exact = false;
    else if (e === 'without numbers') exact = e;
  };
  for (const [op, operand] of Object.entries(condition)) {
    switch (op) {
      case '$eq':
        if (operand === null) {
          if (isId) return null;
          terms.push(`${x} IS NULL`);
          exact = false;
        } else if (isScalar(operand)) {
          terms.push(`${x} = ?`);
          params.push(sqlValue(operand));
          weaken(byType(operand));
        } else return null;
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const sqlOp = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
        if (typeof operand === 'string') {
          terms.push(`(${x} ${sqlOp} ? AND typeof(${x}) = 'text')`);
          params.push(operand);
        } else if (typeof operand === 'number') {
          // booleans come out as integers: checked in JavaScript
          terms.push(`(${x} ${sqlOp} ? AND typeof(${x}) IN ('integer', 'real'))`);
          params.push(operand);
          exact = false;
        } else return null;
        break;
      }
      case '$in': {
        if (
          !Array.isArray(operand) ||
          !operand.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        ) {
          exact = false;
          break;
        }
        terms.push(`${x} IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(operand.map(sqlValue)));
        if (!operand.every((v) => typeof v === 'string')) exact = false;
        break;
      }
      default:
        // $ne, $nin, $exists, $regex: judged in JavaScript
        exact = false;
    }
  }
  if (terms.length === 0) return null;
  return { sql: terms.join(' AND '), params, exact };
}
