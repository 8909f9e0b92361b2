/**
 * Enforces the monorepo's dependency rules from the Nx project tags (project.json), by reading
 * every import in every project's sources:
 * - an app never imports another app (only the composition root, apps/standalone, wires apps);
 * - the end-to-end suite (apps/e2e) drives the system from outside: it boots the standalone
 *   composition root and reaches the bus and the event store as an operator would; nothing
 *   imports it;
 * - contracts import no other project; adapters (port libs) import only contracts and drivers
 *   (libs/sqlite), which import no other project;
 * - domain code (a file that declares a decider) imports only contracts and its own feature files;
 * - every imported workspace package is declared in the importer's package.json, so Nx's project
 *   graph (and build order) is complete;
 * - the gateway routes to no operator subject (those are for the admin CLI and operators only);
 * - a double cast (`as unknown as`) in production code is commented with why (the partner's
 *   identity has a type of its own, `PartnerIdentity`; a recorded event is read with `dataOf`);
 * - the gateway's folders keep to their rooms: the features import the rooms and the HTTP kit
 *   (`http/`), never each other; the rooms import only the kit; the kit imports no folder;
 * - no production module imports test code: a test file (`*.test.ts`), a harness in a `testing/`
 *   folder or libs/testing. Test code may import libs/testing (a devDependency); the image leaves
 *   tests and `testing/` folders out; a module no entry point (main.ts, index.ts) reaches is test
 *   code, so a harness cannot sit among production modules unnoticed.
 */
import { AccountsOperatorSubjects, StorageOperatorSubjects } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { importsOf, resolveSource, root, sources } from './source-graph.js';

interface Project {
  name: string;
  dir: string;
  type: string;
  deps: Set<string>;
  /** devDependencies: what only the project's test code may import */
  devDeps: Set<string>;
}

const projects: Project[] = ['apps', 'libs'].flatMap((top) =>
  readdirSync(join(root, top)).map((name) => {
    const dir = join(root, top, name);
    const meta = JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as { tags: string[] };
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const type = meta.tags.find((t) => t.startsWith('type:'))!.slice(5);
    return {
      name,
      dir,
      type,
      deps: new Set(Object.keys(pkg.dependencies ?? {})),
      devDeps: new Set(Object.keys(pkg.devDependencies ?? {})),
    };
  }),
);
const byName = new Map(projects.map((p) => [p.name, p]));

const ALLOWED: Record<string, string[]> = {
  contracts: [],
  // a driver under the adapters (libs/sqlite: the SQLite driver the embedded adapters share)
  driver: [],
  adapter: ['contracts', 'driver'],
  runtime: ['contracts', 'adapter', 'runtime', 'driver'],
  testing: ['contracts', 'adapter', 'runtime', 'driver'],
  app: ['contracts', 'adapter', 'runtime'],
  composition: ['contracts', 'adapter', 'runtime', 'app', 'testing'],
  e2e: ['contracts', 'adapter', 'runtime', 'composition'],
};

/** Test code: a test file, a harness in a `testing/` folder, or the test-only projects (libs/testing, the e2e suite). */
const TEST_ONLY_TYPES = ['testing', 'e2e'];
const isTestPath = (path: string) => /\.test(\.[jt]s)?$/.test(path) || path.split('/').includes('testing');

/** What a gateway controller must not import: it gets RpcClient and BlobReader injected instead. */
const GATEWAY_CONTROLLER_FORBIDDEN = [
  '@burrow/event-store',
  '@burrow/documents',
  '@burrow/kv',
  '@burrow/runtime',
  '@burrow/eventsourcing',
];

/** The port libs: each holds a port and its adapters, and may import only contracts. */
const ADAPTER_LIBS = ['event-store', 'documents', 'blobs', 'kv', 'transport', 'mailer'];

/**
 * The gateway's folders (docs/decisions.md, "Issue 36: the gateway's rooms"):
 * - `http/` is the HTTP kit (route declarations, bodies, errors, TLS, timeouts, connection limits,
 *   Basic credentials, cross-site refusal, injection tokens): it imports no other folder;
 * - the rooms hold what several interfaces share, each named for what it does: they import the kit
 *   and nothing else;
 * - the features (one per interface) import the kit and the rooms, never another feature;
 * - files directly in src/ are the composition root (the modules, the service, the route list and
 *   the OpenAPI document of every route): only they may import anything.
 * Production code keeps these rules; a feature's tests do too, a room's tests may reach what they
 * check (the OpenAPI test walks every controller).
 */
const GATEWAY_KIT = 'http';
const GATEWAY_ROOMS = ['storage-access', 'transfers', 'partner-access', 'openapi'];
const GATEWAY_FEATURES = ['accounts-api', 'events', 'storage-api', 'share-api', 'web', 'dav', 'ops'];
/** ambient declarations (`types/*.d.ts`, imported by no one) and test support */
const GATEWAY_OTHER = ['types', 'testing'];

/** May gateway folder `from` import folder `to` ('' for a file directly in src/, the composition root)? */
function gatewayImportAllowed(from: string, to: string): boolean {
  if (from === to) return true;
  if (to === 'types') return true;
  if (from === GATEWAY_KIT) return false;
  if (GATEWAY_ROOMS.includes(from)) return to === GATEWAY_KIT;
  return to === GATEWAY_KIT || GATEWAY_ROOMS.includes(to);
}

function gatewayRoomStrays(src: string, folders: string[]): string[] {
  const strays: string[] = [];
  for (const folder of folders.filter((name) => !GATEWAY_OTHER.includes(name))) {
    for (const file of sources(join(src, folder))) {
      if (GATEWAY_ROOMS.includes(folder) && isTestPath(file)) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const path = join(dirname(file), spec)
          .slice(src.length + 1)
          .split('/');
        const target = path.length === 1 ? '' : path[0];
        if (target === 'testing' && isTestPath(file)) continue;
        if (!gatewayImportAllowed(folder, target))
          strays.push(
            `${file.slice(root.length + 1)} (${folder}) imports ${spec} (${target || 'the composition root'})`,
          );
      }
    }
  }
  return strays;
}

describe('module boundaries (Nx tags)', () => {
  const violations: string[] = [];
  const undeclared: string[] = [];
  const domainViolations: string[] = [];
  const controllerViolations: string[] = [];
  const testImports: string[] = [];
  for (const project of projects) {
    for (const file of sources(join(project.dir, 'src'))) {
      const rel = file.slice(root.length + 1);
      const imports = importsOf(file);
      const testCode = TEST_ONLY_TYPES.includes(project.type) || isTestPath(file.slice(project.dir.length + 1));
      const isDomain =
        project.type === 'app' && !file.endsWith('.test.ts') && /:\s*Decider</.test(readFileSync(file, 'utf8'));
      // A gateway controller reaches services over the bus and blobs through the read port only.
      const isGatewayController = project.name === 'gateway' && file.endsWith('.controller.ts');
      for (const spec of imports) {
        if (isGatewayController && GATEWAY_CONTROLLER_FORBIDDEN.includes(spec))
          controllerViolations.push(`${rel} imports ${spec}`);
        if (isDomain && !spec.startsWith('.') && spec !== '@burrow/contracts')
          domainViolations.push(`${rel} imports ${spec}`);
        if (!testCode && (isTestPath(spec) || spec.startsWith('@burrow/testing') || spec.startsWith('@burrow/e2e')))
          testImports.push(`${rel} imports ${spec}`);
        if (!spec.startsWith('@burrow/')) continue;
        const target = byName.get(spec.split('/')[1]);
        if (!target) {
          violations.push(`${rel} imports unknown ${spec}`);
          continue;
        }
        if (target === project) continue;
        const allowed = testCode && target.type === 'testing' ? true : ALLOWED[project.type].includes(target.type);
        if (!allowed) violations.push(`${rel} (${project.type}) imports ${spec} (${target.type})`);
        const declared =
          project.deps.has(`@burrow/${target.name}`) || (testCode && project.devDeps.has(`@burrow/${target.name}`));
        if (!declared) undeclared.push(`${rel} imports @burrow/${target.name}, not in ${project.name}/package.json`);
      }
    }
  }

  it('every project has a known type tag; every port lib is an adapter lib', () => {
    for (const p of projects) assert.ok(p.type in ALLOWED, `${p.name} has type ${p.type}`);
    assert.ok(projects.filter((p) => p.type === 'app').length >= 4);
    for (const name of ADAPTER_LIBS) assert.equal(byName.get(name)?.type, 'adapter', `libs/${name}`);
  });

  it('no project imports across a forbidden boundary (an app never imports an app)', () => {
    assert.deepEqual(violations, []);
  });

  it('domain code (deciders) imports only contracts and its own feature files', () => {
    assert.deepEqual(domainViolations, []);
  });

  it('no gateway controller imports the event store, the read models, the key-value store or the infrastructure', () => {
    assert.deepEqual(controllerViolations, []);
    assert.ok(projects.some((p) => p.name === 'gateway'));
  });

  it('every workspace import is declared in package.json (test code may use devDependencies)', () => {
    assert.deepEqual(undeclared, []);
  });

  it('no production module imports a test file, a testing/ folder, libs/testing or the e2e suite', () => {
    assert.deepEqual(testImports, []);
    // the checker itself: what counts as test code
    for (const path of [
      'src/users/users.int.test.ts',
      '../testing/test-context.js',
      './x.test.js',
      '@burrow/testing/leftovers',
    ])
      assert.ok(isTestPath(path), path);
    for (const path of ['src/users/users.handlers.ts', '../shared/context.js', './contest.js', './attesting.js'])
      assert.ok(!isTestPath(path), path);
  });

  it('every module no entry point (main.ts, index.ts) reaches is test code: a harness belongs in a testing/ folder', () => {
    const reached = new Set<string>();
    // declaration files (`types/*.d.ts`) declare ambient types: no one imports them
    const files = projects
      .filter((p) => !TEST_ONLY_TYPES.includes(p.type))
      .flatMap((p) => sources(join(p.dir, 'src')))
      .filter((file) => !file.endsWith('.d.ts'));
    const stack = files.filter((file) => /\/src\/(main|index)\.ts$/.test(file));
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      for (const spec of importsOf(file)) {
        const target = resolveSource(file, spec);
        if (target) stack.push(target);
      }
    }
    const strays = files
      .filter((file) => !reached.has(file) && !isTestPath(file.slice(root.length + 1)))
      .map((file) => file.slice(root.length + 1));
    assert.deepEqual(strays, []);
  });

  it('the gateway routes to no operator subject (they are for the admin CLI only)', () => {
    const gateway = byName.get('gateway')!;
    const mentions: string[] = [];
    for (const file of sources(join(gateway.dir, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const [key, subject] of Object.entries(AccountsOperatorSubjects)) {
        const named = new RegExp(`(Subjects\\.accounts|AccountsSubjects|AccountsOperatorSubjects)\\.${key}\\b`);
        if (named.test(text) || text.includes(`'${subject}'`))
          mentions.push(`${file.slice(root.length + 1)} mentions ${key} (${subject})`);
      }
      for (const [key, subject] of Object.entries(StorageOperatorSubjects)) {
        const named = new RegExp(`(Subjects\\.storage|StorageSubjects|StorageOperatorSubjects)\\.${key}\\b`);
        if (named.test(text) || text.includes(`'${subject}'`))
          mentions.push(`${file.slice(root.length + 1)} mentions ${key} (${subject})`);
      }
    }
    assert.deepEqual(mentions, []);
    assert.ok(Object.keys(AccountsOperatorSubjects).includes('releaseReservation'));
    assert.ok(Object.keys(StorageOperatorSubjects).includes('runPurge'));
  });

  it("the gateway's folders keep to their rooms: features import rooms and http/, rooms import http/, http/ imports no folder", () => {
    const src = join(byName.get('gateway')!.dir, 'src');
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    const stray = gatewayRoomStrays(src, folders);
    for (const expected of GATEWAY_FEATURES) assert.ok(folders.includes(expected), `the ${expected} module exists`);
    for (const expected of [GATEWAY_KIT, ...GATEWAY_ROOMS])
      assert.ok(folders.includes(expected), `the ${expected} room exists`);
    assert.deepEqual(
      folders.filter(
        (name) =>
          name !== GATEWAY_KIT &&
          !GATEWAY_ROOMS.includes(name) &&
          !GATEWAY_FEATURES.includes(name) &&
          !GATEWAY_OTHER.includes(name),
      ),
      [],
      'every gateway folder is the kit, a room or a feature (add a new one to the lists above)',
    );
    assert.deepEqual(stray, []);
  });

  it('the rooms check catches a feature importing a feature, a room importing a feature and the kit importing a room', () => {
    const allowed = (from: string, to: string) => gatewayImportAllowed(from, to);
    assert.ok(!allowed('dav', 'storage-api'));
    assert.ok(!allowed('transfers', 'dav'));
    assert.ok(!allowed('http', 'storage-access'));
    assert.ok(!allowed('storage-access', ''), 'a room does not import the composition root');
    assert.ok(
      allowed('dav', 'transfers') &&
        allowed('dav', 'http') &&
        allowed('transfers', 'http') &&
        allowed('storage-api', 'openapi'),
    );
  });

  it('every double cast (`as unknown as`) in production code says why, in a comment just above it', () => {
    const uncommented: string[] = [];
    for (const project of projects.filter((p) => !TEST_ONLY_TYPES.includes(p.type))) {
      for (const file of sources(join(project.dir, 'src'))) {
        if (isTestPath(file.slice(project.dir.length + 1))) continue;
        const lines = readFileSync(file, 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (!line.includes('as unknown as') || line.trimStart().startsWith('//') || line.trimStart().startsWith('*'))
            return;
          const above = lines.slice(Math.max(0, i - 8), i);
          if (!above.some((l) => /\/\/ as unknown as\b/.test(l)))
            uncommented.push(`${file.slice(root.length + 1)}:${i + 1}`);
        });
      }
    }
    assert.deepEqual(uncommented, []);
  });

  it('the checker itself catches an app importing an app', () => {
    const accounts = byName.get('accounts')!;
    const gateway = byName.get('gateway')!;
    assert.ok(!ALLOWED[accounts.type].includes(gateway.type));
    assert.ok(!Object.values(ALLOWED).some((types) => types.includes('e2e')), 'nothing may import the e2e suite');
  });
});
