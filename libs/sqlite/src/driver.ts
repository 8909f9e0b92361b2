/**
 * The SQLite the embedded adapters use (event store, read models, key-value store, the read-model
 * lock), behind one small interface of our own with two drivers:
 * - `node:sqlite`, built into Node (no native build, nothing to compile at install), the driver on
 *   Node 22.16 and later, so on every Node Burrow supports;
 * - `better-sqlite3` 12, a native addon, the fallback where `node:sqlite` is missing or lacks what
 *   the adapters use (Node 20, 22.0-22.15). It is loaded only there (`require` at first use,
 *   never imported statically), and refused from Node 24.19 on, where better-sqlite3 12's
 *   `Statement`s can abort the process when the garbage collector finalizes them
 *   (docs/decisions.md, "Node 26 and 24: node:sqlite").
 *
 * The process's driver is chosen once, at its first use, from the Node version;
 * `BURROW_SQLITE_DRIVER=node|better-sqlite3` overrides it (tests, benches).
 *
 * What the two differ in, and how the interface evens it out:
 * - error codes: better-sqlite3 names SQLite's extended result code (`SQLITE_BUSY_SNAPSHOT`);
 *   node:sqlite says `ERR_SQLITE_ERROR` with the number in `errcode`: its errors get the name too;
 * - defaults: better-sqlite3 waits 5 s for a lock and caches 16 MiB of pages per connection;
 *   node:sqlite waits 0 s and caches 2 MiB: node:sqlite connections are opened with better-sqlite3's;
 * - named parameters with keys the statement does not use are ignored by both;
 * - `column()` for better-sqlite3's `pluck`, `transaction()` for its `db.transaction()`.
 */
import type { SqliteDriver, SqliteDriverName } from './api.js';
import { betterSqlite3Driver } from './better-sqlite3.js';
import { nodeSqliteDriver } from './node-sqlite.js';

/** node:sqlite with what the adapters use (`isTransaction`, `setReturnArrays`, unknown named parameters, `timeout`). */
export const NODE_SQLITE_SINCE = '22.16.0';
/** better-sqlite3 12 can abort the process from here on (node::ObjectWrap's cleanup hooks). */
export const BETTER_SQLITE3_REFUSED_SINCE = '24.19.0';

const parse = (version: string) =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
/** a >= b for Node versions ('24.18.1', 'v26.12.1') */
export function versionAtLeast(a: string, b: string): boolean {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return true;
}

export interface DriverChoice {
  name: SqliteDriverName;
  /** why, for the log line */
  reason: string;
}

/**
 * The driver for a process on Node `version` with `BURROW_SQLITE_DRIVER` = `requested`. Throws
 * for an unknown name, node:sqlite asked for on a Node without it, or better-sqlite3 asked for on
 * a Node it can abort on.
 */
export function chooseSqliteDriver(version: string, requested: string | undefined): DriverChoice {
  const wanted = requested?.trim().toLowerCase() || 'auto';
  const hasNode = versionAtLeast(version, NODE_SQLITE_SINCE);
  const bs3Refused = versionAtLeast(version, BETTER_SQLITE3_REFUSED_SINCE);
  if (wanted === 'auto') {
    return hasNode
      ? { name: 'node:sqlite', reason: `built into Node ${version}` }
      : {
          name: 'better-sqlite3',
          reason: `Node ${version} has no node:sqlite with what Burrow uses (${NODE_SQLITE_SINCE} or later)`,
        };
  }
  if (wanted === 'node' || wanted === 'node:sqlite') {
    if (!hasNode)
      throw new Error(
        `BURROW_SQLITE_DRIVER=${requested}: node:sqlite needs Node ${NODE_SQLITE_SINCE} or later (this is ${version})`,
      );
    return { name: 'node:sqlite', reason: 'BURROW_SQLITE_DRIVER' };
  }
  if (wanted === 'better-sqlite3') {
    if (bs3Refused) {
      throw new Error(
        `BURROW_SQLITE_DRIVER=${requested} is refused on Node ${version}: better-sqlite3 12 can abort the process on Node ${BETTER_SQLITE3_REFUSED_SINCE} and later (use node, or leave it unset)`,
      );
    }
    return { name: 'better-sqlite3', reason: 'BURROW_SQLITE_DRIVER' };
  }
  throw new Error(`BURROW_SQLITE_DRIVER must be node or better-sqlite3 (got "${requested}")`);
}

const loaded = new Map<SqliteDriverName, SqliteDriver>();

/** The driver `name`, loaded on first use. Throws when this Node cannot load it (or must not: see `chooseSqliteDriver`). */
export function sqliteDriverNamed(name: SqliteDriverName): SqliteDriver {
  let driver = loaded.get(name);
  if (driver) return driver;
  chooseSqliteDriver(process.versions.node, name === 'node:sqlite' ? 'node' : name);
  // each loads its library here, at first use: better-sqlite3 is never loaded where it is not asked for
  driver = name === 'node:sqlite' ? nodeSqliteDriver() : betterSqlite3Driver();
  loaded.set(name, driver);
  return driver;
}

let chosen: (DriverChoice & { driver: SqliteDriver }) | null = null;

/** The process's driver: chosen at the first call (Node version, `BURROW_SQLITE_DRIVER`), then kept. */
export function sqliteDriver(): SqliteDriver {
  return sqliteDriverChoice().driver;
}

/** The process's driver and why it was chosen (for the one log line at start). */
export function sqliteDriverChoice(): DriverChoice & { driver: SqliteDriver } {
  if (!chosen) {
    const choice = chooseSqliteDriver(process.versions.node, process.env.BURROW_SQLITE_DRIVER);
    chosen = { ...choice, driver: sqliteDriverNamed(choice.name) };
  }
  return chosen;
}

/**
 * Every driver this Node can use (for the contract suites: each runs once per driver): node:sqlite
 * where Node has it, better-sqlite3 where it is allowed and its addon loads (built for this Node's
 * ABI). better-sqlite3 is not even tried from Node 24.19 on.
 */
export function usableSqliteDrivers(): SqliteDriver[] {
  const out: SqliteDriver[] = [];
  for (const name of ['node:sqlite', 'better-sqlite3'] as const) {
    try {
      const driver = sqliteDriverNamed(name);
      driver.open(':memory:').close();
      out.push(driver);
    } catch {
      // not on this Node
    }
  }
  return out;
}
