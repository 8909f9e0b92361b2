/**
 * The SQLite driver interface: which driver a Node gets, and that every driver this Node can use
 * behaves as the adapters expect (the differences between node:sqlite and better-sqlite3 evened out).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SqliteDatabase } from './api.js';
import {
  BETTER_SQLITE3_REFUSED_SINCE,
  chooseSqliteDriver,
  NODE_SQLITE_SINCE,
  usableSqliteDrivers,
  versionAtLeast,
} from './driver.js';
import { resultCodeName } from './result-codes.js';

const drivers = usableSqliteDrivers();
const node = process.versions.node;

describe('the driver a Node gets', () => {
  it('node:sqlite from Node 22.16 on, better-sqlite3 below; BURROW_SQLITE_DRIVER overrides where that driver can run', () => {
    const auto = (version: string) => chooseSqliteDriver(version, undefined).name;
    assert.equal(auto('20.20.2'), 'better-sqlite3');
    assert.equal(auto('22.15.1'), 'better-sqlite3');
    assert.equal(auto('22.16.0'), 'node:sqlite');
    assert.equal(auto('24.18.1'), 'node:sqlite');
    assert.equal(auto('24.22.3'), 'node:sqlite');
    assert.equal(auto('v26.12.1'), 'node:sqlite');
    assert.equal(chooseSqliteDriver('26.12.1', ' ').name, 'node:sqlite');
    assert.equal(chooseSqliteDriver('26.12.1', 'auto').name, 'node:sqlite');
    assert.equal(chooseSqliteDriver('24.18.1', 'better-sqlite3').name, 'better-sqlite3');
    assert.equal(chooseSqliteDriver('24.18.1', 'Node').name, 'node:sqlite');
    assert.equal(chooseSqliteDriver('26.12.1', 'node:sqlite').name, 'node:sqlite');
    assert.throws(
      () => chooseSqliteDriver('24.19.0', 'better-sqlite3'),
      /BURROW_SQLITE_DRIVER=better-sqlite3 is refused on Node 24\.19\.0: better-sqlite3 12 can abort the process/,
    );
    assert.throws(() => chooseSqliteDriver('26.12.1', 'better-sqlite3'), /refused on Node 26\.12\.1/);
    assert.throws(
      () => chooseSqliteDriver('20.20.2', 'node'),
      /node:sqlite needs Node 22\.16\.0 or later \(this is 20\.20\.2\)/,
    );
    assert.throws(
      () => chooseSqliteDriver('26.12.1', 'sqlite3'),
      /BURROW_SQLITE_DRIVER must be node or better-sqlite3 \(got "sqlite3"\)/,
    );
  });

  it('compares versions by number', () => {
    assert.ok(versionAtLeast('24.19.0', '24.19.0'));
    assert.ok(versionAtLeast('24.100.0', '24.19.0'));
    assert.ok(versionAtLeast('v26.0.0', '24.19.0'));
    assert.ok(!versionAtLeast('24.18.9', '24.19.0'));
    assert.ok(!versionAtLeast('9.0.0', '22.16.0'));
  });

  it(`this Node (${node}) can use the driver it gets`, () => {
    const name = chooseSqliteDriver(node, undefined).name;
    assert.ok(
      drivers.some((d) => d.name === name),
      `${name} does not load on Node ${node} (usable: ${drivers.map((d) => d.name).join(', ') || 'none'})`,
    );
    assert.equal(
      drivers.some((d) => d.name === 'node:sqlite'),
      versionAtLeast(node, NODE_SQLITE_SINCE),
    );
  });

  it(
    'better-sqlite3 is never loaded from Node 24.19 on (not even to see whether it loads)',
    { skip: versionAtLeast(node, BETTER_SQLITE3_REFUSED_SINCE) ? undefined : `Node ${node} may load it` },
    () => {
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) =>
        /[\\/]better-sqlite3[\\/]/.test(path),
      );
      assert.deepEqual(loaded, []);
      assert.ok(!drivers.some((d) => d.name === 'better-sqlite3'));
    },
  );

  it(
    'loading node:sqlite prints nothing (Node 22 warns that it is experimental: held back)',
    { skip: versionAtLeast(node, NODE_SQLITE_SINCE) ? undefined : `no node:sqlite on Node ${node}` },
    () => {
      const script = `import(${JSON.stringify(new URL('./index.js', import.meta.url).href)}).then((m) => m.sqliteDriverNamed('node:sqlite').open(':memory:').close())`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stderr, '');
    },
  );

  it("names SQLite's result codes as better-sqlite3 does", () => {
    assert.equal(resultCodeName(2067), 'SQLITE_CONSTRAINT_UNIQUE');
    assert.equal(resultCodeName(1555), 'SQLITE_CONSTRAINT_PRIMARYKEY');
    assert.equal(resultCodeName(517), 'SQLITE_BUSY_SNAPSHOT');
    assert.equal(resultCodeName(5), 'SQLITE_BUSY');
    assert.equal(resultCodeName(26), 'SQLITE_NOTADB');
    assert.equal(resultCodeName(13), 'SQLITE_FULL');
    assert.equal(resultCodeName(5 | (40 << 8)), 'SQLITE_BUSY', 'an extended code SQLite adds later: its primary name');
  });
});

const dir = await mkdtemp(join(tmpdir(), 'burrow-sqlite-driver-'));
after(() => rm(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `db-${++files}.sqlite`);

for (const driver of drivers) {
  describe(`SQLite driver: ${driver.name}`, () => {
    const withDb = async (run: (db: SqliteDatabase, path: string) => void | Promise<void>) => {
      const path = file();
      const db = driver.open(path);
      try {
        await run(db, path);
      } finally {
        db.close();
      }
    };
    const seed = (db: SqliteDatabase) => {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, k TEXT UNIQUE, v TEXT)');
      const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
      for (const k of ['a', 'b', 'c']) insert.run(k, `${k}!`);
    };

    it("opens with better-sqlite3's defaults: 5 s busy timeout (or the one asked for), 16 MiB page cache, WAL on request", async () => {
      await withDb((db) => {
        assert.equal(db.driver, driver.name);
        assert.equal(db.pragma('busy_timeout'), 5000);
        assert.equal(db.pragma('cache_size'), -16000);
        assert.equal(db.pragma('journal_mode = WAL'), 'wal');
        assert.equal(db.pragma('journal_mode'), 'wal');
      });
      const other = driver.open(file(), { busyTimeoutMs: 250 });
      assert.equal(other.pragma('busy_timeout'), 250);
      other.close();
    });

    it('run, get, all, iterate and column; named parameters the statement does not use are ignored', () =>
      withDb((db) => {
        seed(db);
        const result = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run('d', 'd!');
        assert.deepEqual({ ...result }, { changes: 1, lastInsertRowid: 4 });
        assert.equal(typeof result.lastInsertRowid, 'number');
        assert.equal(db.prepare('UPDATE t SET v = v || ?').run('?').changes, 4);
        assert.deepEqual({ ...(db.prepare('SELECT k, v FROM t WHERE id = ?').get(2) as object) }, { k: 'b', v: 'b!?' });
        assert.equal(db.prepare('SELECT k FROM t WHERE id = ?').get(99), undefined);
        const named = db.prepare('SELECT k FROM t WHERE k >= @from ORDER BY k LIMIT @limit');
        assert.deepEqual(
          named.all({ from: 'b', limit: 2, unused: 1 }).map((r) => (r as { k: string }).k),
          ['b', 'c'],
        );
        assert.deepEqual(db.prepare('SELECT k FROM t ORDER BY k DESC').column(), ['d', 'c', 'b', 'a']);
        const stmt = db.prepare('SELECT k FROM t ORDER BY k');
        const seen: string[] = [];
        for (const row of stmt.iterate() as Iterable<{ k: string }>) {
          seen.push(row.k);
          if (seen.length === 2) break;
        }
        assert.deepEqual(seen, ['a', 'b']);
        // the statement, and the connection, are free again after leaving the loop early
        assert.deepEqual(
          stmt.all().map((r) => (r as { k: string }).k),
          ['a', 'b', 'c', 'd'],
        );
        db.prepare('DELETE FROM t WHERE k = ?').run('d');
      }));

    it("errors carry SQLite's result code by name: constraint, not a database, busy", async () => {
      await withDb((db) => {
        seed(db);
        assert.throws(() => db.prepare('INSERT INTO t (k) VALUES (?)').run('a'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
        assert.throws(() => db.prepare('INSERT INTO t (id, k) VALUES (?, ?)').run(1, 'z'), {
          code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
        });
        assert.throws(() => db.exec("INSERT INTO t (k) VALUES (NULL); INSERT INTO t (k) VALUES ('a')"), {
          code: 'SQLITE_CONSTRAINT_UNIQUE',
        });
      });
      const garbage = file();
      await writeFile(garbage, 'not a database '.repeat(300));
      assert.throws(
        () => {
          const db = driver.open(garbage);
          try {
            db.pragma('journal_mode = WAL');
          } finally {
            db.close();
          }
        },
        { code: 'SQLITE_NOTADB' },
      );
      await withDb((db, path) => {
        seed(db);
        const other = driver.open(path, { busyTimeoutMs: 0 });
        try {
          db.transaction(() => {
            db.prepare('INSERT INTO t (k) VALUES (?)').run('locked');
            assert.throws(
              () => other.exec('BEGIN IMMEDIATE'),
              (error: { code?: string }) => /^SQLITE_BUSY/.test(String(error.code)),
            );
          }, 'immediate');
        } finally {
          other.close();
        }
      });
    });

    it('transactions commit, roll back when the body throws, and nest as savepoints', () =>
      withDb((db) => {
        seed(db);
        const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
        const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
        assert.equal(db.inTransaction, false);
        assert.equal(
          db.transaction(() => {
            assert.equal(db.inTransaction, true);
            insert.run('x');
            return 'returned';
          }, 'immediate'),
          'returned',
        );
        assert.equal(count(), 4);
        assert.throws(
          () =>
            db.transaction(() => {
              insert.run('y');
              throw new Error('undo');
            }),
          /undo/,
        );
        assert.equal(count(), 4);
        assert.equal(db.inTransaction, false);
        db.transaction(() => {
          insert.run('outer');
          assert.throws(
            () =>
              db.transaction(() => {
                insert.run('inner');
                insert.run('a');
              }),
            { code: 'SQLITE_CONSTRAINT_UNIQUE' },
          );
          assert.equal(db.inTransaction, true, 'the outer transaction goes on');
        });
        assert.deepEqual(db.prepare("SELECT k FROM t WHERE k IN ('outer', 'inner') ORDER BY k").column(), ['outer']);
        assert.throws(
          () => db.transaction(() => Promise.resolve(insert.run('z')) as unknown),
          /cannot return a promise/,
        );
        assert.equal(count(), 5, 'rolled back');
      }));

    it('close is final and can be called twice', () => {
      const db = driver.open(file());
      assert.equal(db.open, true);
      db.close();
      db.close();
      assert.equal(db.open, false);
      assert.throws(() => db.exec('SELECT 1'));
    });
  });
}
