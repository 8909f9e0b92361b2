/**
 * The GC stress workload (gc-stress.test.ts runs it in a child with `--expose-gc`): `node
 * gc-stress-child.js <driver> <dir>`. Many statements prepared, run once and dropped, the
 * collector forced between rounds while the event loop is idle (a full GC in JavaScript, and one
 * run as a task of the event loop, outside any JavaScript), and the last rounds' statements left
 * for the collection at exit, when the isolate is torn down with no context entered: where
 * better-sqlite3 12 built for Node 24.19+ aborts (`Assertion failed: (env) != nullptr` in
 * `RemoveEnvironmentCleanupHook`, from a finalized `Statement`). Prints `done <statements>`.
 */
import { join } from 'node:path';
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import type { SqliteDriverName } from '../api.js';
import { sqliteDriverNamed } from '../driver.js';

const [name, dir] = process.argv.slice(2) as [SqliteDriverName, string];
const gc = (globalThis as { gc?: (options?: { type: 'major'; execution: 'async' }) => Promise<void> | void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const ROUNDS = 30;
const PER_ROUND = 300;
const LEFT_AT_EXIT = 3000;

const db = sqliteDriverNamed(name).open(join(dir, 'stress.sqlite'));
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
db.transaction(() => {
  for (let i = 0; i < PER_ROUND; i++) insert.run(i, `v${i}`);
});

let statements = 0;
/** `count` statements of their own SQL (none reused), each run once, none kept */
function churn(round: number, count: number): void {
  for (let i = 0; i < count; i++) {
    const stmt = db.prepare(`SELECT v FROM t WHERE id = ? /* ${round}.${i} */`);
    if (i % 3 === 0) stmt.all(i);
    else stmt.get(i);
    statements++;
  }
}

for (let round = 0; round < ROUNDS; round++) {
  churn(round, PER_ROUND);
  await turn();
  // idle: a GC called from JavaScript, then one the event loop runs as a task of its own
  void gc();
  await gc({ type: 'major', execution: 'async' });
  await sleep(1);
}
// dropped but not collected: finalized while the isolate is torn down, after the last JavaScript
churn(ROUNDS, LEFT_AT_EXIT);
console.log(`done ${statements}`);
