/**
 * The monorepo's sources as the structure tests read them: every project's `.ts` files and what
 * each imports (relative paths and workspace packages resolved to the source file they name).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!readdirSync(dir).includes('nx.json')) dir = dirname(dir);
  return dir;
}

/** The repository root (the folder holding nx.json). */
export const root = findRoot();

/** Every `.ts` file below `dir`. */
export function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers a file imports or re-exports (type-only imports included). */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

/** The source file a specifier names (`./x.js` -> `x.ts`, `@burrow/p/a/b` -> `<p>/src/a/b.ts`), or null for a package outside the workspace. */
export function resolveSource(from: string, spec: string): string | null {
  if (spec.startsWith('.')) return resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
  if (!spec.startsWith('@burrow/')) return null;
  const [, name, ...rest] = spec.split('/');
  const project = ['apps', 'libs'].map((top) => join(root, top, name)).find((dir) => existsSync(dir));
  return project ? join(project, 'src', rest.length ? `${rest.join('/')}.ts` : 'index.ts') : null;
}
