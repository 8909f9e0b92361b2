/**
 * No import cycle anywhere: the import graph of every app's and lib's sources (tests, harnesses
 * and type-only imports included; workspace packages resolved to their sources) has no cycle. A
 * cycle is printed file by file. Two modules that need each other share a piece that belongs in a
 * third file both import.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importsOf, resolveSource, root, sources } from './source-graph.js';

type Graph = Map<string, string[]>;

function sourceGraph(): Graph {
  const graph: Graph = new Map();
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, top))) {
      const src = join(root, top, project, 'src');
      if (!existsSync(src)) continue;
      for (const file of sources(src)) {
        const targets = importsOf(file).map((spec) => resolveSource(file, spec)).filter((t): t is string => t !== null);
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
