/**
 * No import cycle anywhere: the import graph of every app's and lib's sources (tests, harnesses
 * and type-only imports included; workspace packages resolved to their sources) has no cycle. A
 * cycle is printed file by file. Two modules that need each other share a piece that belongs in a
 * third file both import.
 *
 * No folder-level cycle either, in the apps that grew by feature folders (accounts, storage-catalog,
 * the gateway): among the top-level folders of their src/, no folder A imports folder B while B
 * imports A (directly or through other folders). Production code only: tests and `testing/`
 * harnesses wire features together on purpose; files directly in src/ are the composition root,
 * which imports every folder. A cycle that stays is listed in FOLDER_CYCLE_EXCEPTIONS with why.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importsOf, resolveSource, root, sources } from './source-graph.js';

type Graph = Map<string, string[]>;

/** The apps checked for folder-level cycles. */
const FOLDER_APPS = ['accounts', 'storage-catalog', 'gateway'];

/** Folder cycles that stay, each with why (app: the folders of the cycle, sorted, joined by ' ⇄ '). */
const FOLDER_CYCLE_EXCEPTIONS: Record<string, string> = {
  // One write path over two aggregates, not a misplaced file: a member's plan follows its group's
  // (users' writes call groups/member-plan.ts), and a group's membership or plan change rewrites its
  // members through users/change-user.ts. Moving either file moves the cycle, it does not end it.
  'accounts: groups ⇄ users':
    "a member's plan follows its group's: user writes adopt the group plan, group writes change their members",
};

const isTestCode = (file: string) => file.endsWith('.test.ts') || file.split('/').includes('testing');

function sourceGraph(): Graph {
  const graph: Graph = new Map();
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, top))) {
      const src = join(root, top, project, 'src');
      if (!existsSync(src)) continue;
      for (const file of sources(src)) {
        const targets = importsOf(file)
          .map((spec) => resolveSource(file, spec))
          .filter((t): t is string => t !== null);
        graph.set(file, targets);
      }
    }
  }
  return graph;
}

/** One cycle through each strongly connected group of files (depth-first: white, grey, black). */
function findCycles(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

/**
 * The folder graph of an app's production code: for each top-level folder of src/, the folders its
 * files import, each arrow with the imports that make it.
 */
function folderGraph(app: string): { graph: Graph; why: Map<string, string[]> } {
  const src = join(root, 'apps', app, 'src');
  const folderOf = (file: string) => {
    const parts = file.slice(src.length + 1).split('/');
    return parts.length > 1 ? parts[0] : null;
  };
  const graph: Graph = new Map();
  const why = new Map<string, string[]>();
  for (const folder of readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory()))
    graph.set(folder, []);
  for (const file of sources(src)) {
    const from = folderOf(file);
    if (from === null || isTestCode(file.slice(src.length)) || file.endsWith('.d.ts')) continue;
    for (const spec of importsOf(file)) {
      const target = resolveSource(file, spec);
      const to = target?.startsWith(src + '/') ? folderOf(target) : null;
      if (to === null || to === from) continue;
      if (!graph.get(from)!.includes(to)) graph.get(from)!.push(to);
      const arrow = `${from} -> ${to}`;
      why.set(arrow, [...(why.get(arrow) ?? []), `${file.slice(src.length + 1)} imports ${spec}`]);
    }
  }
  return { graph, why };
}

/** The strongly connected groups of more than one node (Tarjan): each a cycle of folders, sorted. */
function cyclicGroups(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => a.join().localeCompare(b.join()));
}

describe('folder-level cycles', () => {
  for (const app of FOLDER_APPS) {
    it(`no two folders of ${app} import each other (production code)`, () => {
      const { graph, why } = folderGraph(app);
      assert.ok(graph.size >= 5, `the folders of ${app} were found`);
      const found = cyclicGroups(graph).map((group) => ({ key: `${app}: ${group.join(' ⇄ ')}`, group }));
      const unexpected = found.filter(({ key }) => !(key in FOLDER_CYCLE_EXCEPTIONS));
      const report = unexpected.map(({ key, group }) => {
        const arrows = [...why].filter(([arrow]) => arrow.split(' -> ').every((end) => group.includes(end)));
        return `${key}\n${arrows.map(([arrow, lines]) => `  ${arrow}\n${lines.map((line) => `    ${line}`).join('\n')}`).join('\n')}`;
      });
      assert.ok(report.length === 0, `folder cycles:\n${report.join('\n\n')}`);
      const stale = Object.keys(FOLDER_CYCLE_EXCEPTIONS).filter(
        (key) => key.startsWith(`${app}: `) && !found.some((cycle) => cycle.key === key),
      );
      assert.deepEqual(stale, [], 'an exception whose cycle is gone is taken off the list');
    });
  }

  it('the folder check finds a cycle through three folders and not a one-way arrow', () => {
    const graph: Graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['d']],
    ]);
    assert.deepEqual(cyclicGroups(graph), [['a', 'b', 'c']]);
  });
});

describe('import cycles', () => {
  it('no app or lib has an import cycle', () => {
    const graph = sourceGraph();
    assert.ok(graph.size > 300, 'the sources were found');
    const cycles = findCycles(graph).map((cycle) => cycle.map((file) => file.slice(root.length + 1)).join('\n  -> '));
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n\n')}`);
  });

  it('the walk finds a cycle and prints it in order', () => {
    const graph: Graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'x']],
      ['c', ['a']],
      ['d', ['d']],
      ['x', []],
    ]);
    assert.deepEqual(findCycles(graph), [
      ['a', 'b', 'c', 'a'],
      ['d', 'd'],
    ]);
  });
});
