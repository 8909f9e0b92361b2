/**
 * Preloaded (`node --import`) into every test process by scripts/run-tests.mjs. It records what the
 * runner cannot see from outside:
 *
 * - the file's CPU time at exit: this process and every child process it waited for (the servers a
 *   multi-process target spawns are reaped when they stop), from /proc/self/stat, into
 *   BURROW_TEST_CPU_FILE;
 * - with BURROW_TEST_PROFILE_FILE set (`npm run test:profile`), each test's wall and CPU time,
 *   counting the CPU of the process tree under this process (a multi-process target's services)
 *   as well as this process.
 *
 * It changes no test's behaviour: without BURROW_TEST_PROFILE_FILE it only reads /proc at exit.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';

const TICK_MS = 10; // Linux reports CPU times in clock ticks of 1/100 s (USER_HZ)

/** [utime, stime, cutime, cstime, ppid] of /proc/<pid>/stat, in ticks */
function statOf(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name is in parentheses and may hold spaces: count fields after its closing one
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    ppid: Number(fields[1]),
    self: Number(fields[11]) + Number(fields[12]),
    children: Number(fields[13]) + Number(fields[14]),
  };
}

const cpuFile = process.env.BURROW_TEST_CPU_FILE;
if (cpuFile) {
  process.on('exit', () => {
    try {
      const { self, children } = statOf('self');
      writeFileSync(cpuFile, JSON.stringify({ cpuMs: (self + children) * TICK_MS }));
    } catch {
      // no /proc (not Linux): the runner shows no CPU figure
    }
  });
}

/** CPU of this process, of the children it reaped, and of every live descendant, in ms */
function treeCpuMs() {
  const byParent = new Map();
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = statOf(name);
      if (!byParent.has(s.ppid)) byParent.set(s.ppid, []);
      byParent.get(s.ppid).push({ pid: Number(name), ...s });
    } catch {
      // exited meanwhile
    }
  }
  const me = statOf('self');
  total += me.self + me.children;
  const stack = [process.pid];
  while (stack.length > 0) {
    for (const child of byParent.get(stack.pop()) ?? []) {
      total += child.self + child.children;
      stack.push(child.pid);
    }
  }
  return total * TICK_MS;
}

const profileFile = process.env.BURROW_TEST_PROFILE_FILE;
if (profileFile) {
  const require = createRequire(import.meta.url);
  const nodeTest = require('node:test');
  const wrap = (original) => {
    const wrapped = function (...args) {
      const name = typeof args[0] === 'string' ? args[0] : (args.find((a) => typeof a === 'function')?.name ?? '');
      const at = args.findIndex((a) => typeof a === 'function');
      // a test taking a `done` callback (two parameters) is left as it is
      if (at >= 0 && args[at].length < 2) {
        const body = args[at];
        args[at] = async function (...testArgs) {
          const wall = performance.now();
          const cpu = treeCpuMs();
          try {
            return await body.apply(this, testArgs);
          } finally {
            const line = { name, wallMs: performance.now() - wall, cpuMs: treeCpuMs() - cpu };
            appendFileSync(profileFile, JSON.stringify(line) + '\n');
          }
        };
      }
      return original.apply(this, args);
    };
    // it.skip, it.todo, it.only stay what they were
    return Object.assign(wrapped, original);
  };
  nodeTest.it = wrap(nodeTest.it);
  nodeTest.test = wrap(nodeTest.test);
  syncBuiltinESMExports();
}
