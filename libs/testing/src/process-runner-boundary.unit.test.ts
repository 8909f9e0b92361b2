/**
 * Multi-step writes have one runner (docs/decisions.md "Multi-step writes"): outside
 * libs/eventsourcing nothing begins, steps, notes, abandons, completes or ends a process by hand;
 * a write is declared with `defineWorkflow` and run with `ProcessLog.run`, and recovery uses the
 * same declaration (each service hands every workflow it declares to its ProcessRecovery). Read
 * from the sources (tests included), like boundaries.unit.test.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!readdirSync(dir).includes('nx.json')) dir = dirname(dir);
  return dir;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'dist' || name === 'node_modules') continue;
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const root = repoRoot();
const RUNNER_LIB = join(root, 'libs', 'eventsourcing');

/**
 * A process's own calls: on a ProcessLog (`processes.begin`, `processes.end`) or a running process
 * (`process.step`, `.note`, `.abandon`, `.complete`), and the running process's type.
 */
const BY_HAND = /\b\w*process\w*\.(?:begin|end|step|note|abandon|complete)\(|\bRunningProcess\b/gi;

const SELF = join(root, 'libs', 'testing', 'src', 'process-runner-boundary.unit.test.ts');
const outside = ['apps', 'libs']
  .flatMap((top) => sources(join(root, top)))
  .filter((file) => !file.startsWith(RUNNER_LIB + '/') && file !== SELF);

describe('multi-step writes go through the one runner', () => {
  it('the check recognises a write orchestrated by hand', () => {
    const byHand = `const process = await this.ctx.processes.begin(createUserProcess(this.ctx), data);
      try { await process.step('reserve', () => reserve()); } catch (error) { return process.abandon(error); }
      await process.complete();`;
    assert.deepEqual(byHand.match(BY_HAND), [
      'processes.begin(',
      'process.step(',
      'process.abandon(',
      'process.complete(',
    ]);
    assert.equal('await this.ctx.logins.begin({ realm })'.match(BY_HAND), null, 'a login attempt is not a process');
  });

  it('no file outside libs/eventsourcing begins, abandons or completes a process by hand', () => {
    const found: string[] = [];
    for (const file of outside) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const m of line.match(BY_HAND) ?? []) found.push(`${file.slice(root.length + 1)}:${i + 1} ${m}`);
      });
    }
    assert.deepEqual(found, []);
  });

  it('the services run their multi-step writes through ProcessLog.run', () => {
    for (const app of ['accounts', 'storage-catalog']) {
      const runs = sources(join(root, 'apps', app, 'src')).filter((f) =>
        /\.processes\.run\(/.test(readFileSync(f, 'utf8')),
      );
      assert.ok(runs.length > 0, `${app} runs no workflow`);
    }
  });

  it('every workflow a service declares is one its recovery settles', () => {
    for (const app of ['accounts', 'storage-catalog']) {
      const service = readFileSync(join(root, 'apps', app, 'src', `${app}.service.ts`), 'utf8');
      const declared = sources(join(root, 'apps', app, 'src')).flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/export const (\w+) = \(ctx: \w+\) =>\s*defineWorkflow\b/g)].map(
          (m) => m[1],
        ),
      );
      assert.ok(declared.length >= 5, `${app}: ${declared.join(', ')}`);
      assert.deepEqual(
        declared.filter((name) => !service.includes(`${name}(ctx)`)),
        [],
        `${app}.service.ts hands them all to ProcessRecovery`,
      );
    }
  });
});
