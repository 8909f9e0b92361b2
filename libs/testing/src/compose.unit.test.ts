// Checks the distributed deployment without Docker (no engine or compose plugin exists on the
// development machines): docker-compose.yml must validate against the vendored compose-spec
// schema (deploy/schema/compose-spec.json) and follow Burrow's own deployment rules, every image
// it names or builds from must be pinned (no `latest`, no untagged), every built image's Dockerfile
// must exist, and deploy/Dockerfile must follow the install rule from STACK-NOTES. Each rule is
// also exercised against a deliberately broken copy, so a checker that silently accepts
// everything fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type ComposeService = { [key: string]: Json };
type ComposeFile = { services: { [name: string]: ComposeService }; [key: string]: Json };

/** Burrow's own processes: built from deploy/Dockerfile, talking over NATS. */
const APP_SERVICES = ['gateway', 'accounts', 'billing', 'storage-catalog'] as const;
/** The one service allowed to publish host ports. */
const EDGE_SERVICE = 'edge';
const REQUIRED_SERVICES = [...APP_SERVICES, EDGE_SERVICE, 'nats', 'kurrentdb', 'postgres', 'mongodb', 'minio'];
const DOCKERFILE = 'deploy/Dockerfile';

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no directory containing nx.json above ${start}`);
    dir = parent;
  }
}

const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
const readRepoFile = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

function loadCompose(): ComposeFile {
  // Compose resolves YAML merge keys (`<<: *anchor`), so the parser must too.
  return parse(readRepoFile('docker-compose.yml'), { merge: true }) as ComposeFile;
}

// --- schema ------------------------------------------------------------------------------------

/**
 * Validators for the custom `format`s the compose schema uses. Values that still contain a
 * `${...}` interpolation cannot be judged before Compose substitutes them, so they pass.
 */
const interpolated = (value: string): boolean => value.includes('${');
const KNOWN_FORMATS: Record<string, (value: string) => boolean> = {
  expose: (v) => interpolated(v) || /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(v),
  ports: (v) => interpolated(v) || /^[\w.:[\]-]*\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(v),
  duration: (v) => interpolated(v) || /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(v),
};

function formatsUsedIn(schema: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) formatsUsedIn(item, found);
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'format' && typeof value === 'string') found.add(value);
      else formatsUsedIn(value, found);
    }
  }
  return found;
}

function compileComposeValidator(): (doc: unknown) => string[] {
  const schema = JSON.parse(readRepoFile('deploy/schema/compose-spec.json')) as { [key: string]: Json };
  // The schema labels its definitions with draft-04 style `id` members. Ajv refuses `id` outright
  // ("use $id"), so that keyword is removed and, with strict: false, ignored like any annotation.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.removeKeyword('id');
  for (const format of formatsUsedIn(schema)) {
    // A format this test does not know is accepted rather than failing the whole suite when the
    // vendored schema is updated; known ones are really checked.
    ajv.addFormat(format, KNOWN_FORMATS[format] ?? true);
  }
  const validate = ajv.compile(schema);
  return (doc) =>
    validate(doc)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

// --- Burrow deployment rules -------------------------------------------------------------------

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function environmentOf(service: ComposeService): Map<string, string | null> {
  const env = new Map<string, string | null>();
  const raw = service['environment'];
  if (Array.isArray(raw)) {
    for (const entry of raw) {
      const text = String(entry);
      const eq = text.indexOf('=');
      if (eq === -1) env.set(text, null);
      else env.set(text.slice(0, eq), text.slice(eq + 1));
    }
  } else if (isObject(raw)) {
    for (const [key, value] of Object.entries(raw)) env.set(key, value === null ? null : String(value));
  }
  return env;
}

function dependenciesOf(service: ComposeService): Map<string, string> {
  const raw = service['depends_on'];
  const deps = new Map<string, string>();
  if (Array.isArray(raw)) for (const name of raw) deps.set(String(name), 'service_started');
  else if (isObject(raw)) {
    for (const [name, spec] of Object.entries(raw)) {
      deps.set(name, isObject(spec) && typeof spec['condition'] === 'string' ? spec['condition'] : 'service_started');
    }
  }
  return deps;
}

/** Named volumes and host paths a service mounts (short `src:dst[:mode]` or long syntax). */
function mountSourcesOf(service: ComposeService): { named: string[]; hostPaths: string[] } {
  const named: string[] = [];
  const hostPaths: string[] = [];
  const raw = service['volumes'];
  if (!Array.isArray(raw)) return { named, hostPaths };
  for (const entry of raw) {
    let source: string | undefined;
    let type: string | undefined;
    if (typeof entry === 'string') {
      const parts = entry.split(':');
      if (parts.length >= 2) source = parts[0];
    } else if (isObject(entry)) {
      source = typeof entry['source'] === 'string' ? entry['source'] : undefined;
      type = typeof entry['type'] === 'string' ? entry['type'] : undefined;
    }
    if (source === undefined || type === 'tmpfs') continue;
    if (type === 'bind' || source.startsWith('.') || source.startsWith('/') || source.startsWith('~')) {
      hostPaths.push(source);
    } else {
      named.push(source);
    }
  }
  return { named, hostPaths };
}

/** The Dockerfile a service is built from (repository-relative), or null for a pulled image. */
function dockerfileOf(service: ComposeService): string | null {
  const build = service['build'];
  if (typeof build === 'string') return join(build, 'Dockerfile');
  if (!isObject(build)) return null;
  const context = typeof build['context'] === 'string' ? build['context'] : '.';
  return join(context, typeof build['dockerfile'] === 'string' ? build['dockerfile'] : 'Dockerfile');
}

/** A healthcheck in compose, or, for a built service, the HEALTHCHECK of its Dockerfile (not disabled). */
function hasHealthcheck(service: ComposeService): boolean {
  const hc = service['healthcheck'];
  if (isObject(hc)) {
    if (hc['disable'] === true) return false;
    if (hc['test'] !== undefined && hc['test'] !== null) return true;
  }
  const dockerfile = dockerfileOf(service);
  return (
    dockerfile !== null &&
    existsSync(join(repoRoot, dockerfile)) &&
    /^HEALTHCHECK\s+(?!NONE)/m.test(dockerfileInstructions(readRepoFile(dockerfile)))
  );
}

function deploymentRuleViolations(compose: ComposeFile): string[] {
  const problems: string[] = [];
  const services = isObject(compose.services) ? compose.services : {};
  const names = new Set(Object.keys(services));

  for (const required of REQUIRED_SERVICES) {
    if (!names.has(required)) problems.push(`service "${required}" is missing`);
  }

  const gateway = services['gateway'];
  if (gateway) {
    if ('container_name' in gateway) problems.push('gateway sets container_name, so it cannot be scaled');
    if ('ports' in gateway) problems.push('gateway publishes ports, so it cannot be scaled (the edge is the entry)');
  }

  for (const [name, service] of Object.entries(services)) {
    if ('ports' in service && name !== EDGE_SERVICE) {
      problems.push(`service "${name}" publishes ports; only "${EDGE_SERVICE}" may`);
    }
  }
  const edgePorts = services[EDGE_SERVICE]?.['ports'];
  const published = Array.isArray(edgePorts) ? edgePorts.map((p) => String(isObject(p) ? p['published'] : p)) : [];
  for (const port of ['80', '443']) {
    if (!published.some((p) => p === port || p.startsWith(`${port}:`))) {
      problems.push(`edge does not publish port ${port}`);
    }
  }

  for (const app of APP_SERVICES) {
    const service = services[app];
    if (!service) continue;
    if ('container_name' in service) problems.push(`app service "${app}" sets container_name; every app must scale`);
    const nats = environmentOf(service).get('NATS_URL');
    if (!nats) problems.push(`app service "${app}" does not set NATS_URL`);
    const build = service['build'];
    if (!isObject(build)) {
      problems.push(`app service "${app}" is not built from ${DOCKERFILE}`);
      continue;
    }
    if (build['dockerfile'] !== DOCKERFILE) problems.push(`app service "${app}" does not use ${DOCKERFILE}`);
    const args = build['args'];
    const appArg = isObject(args) ? args['APP'] : undefined;
    if (appArg !== app) problems.push(`app service "${app}" builds APP=${String(appArg)} instead of ${app}`);
    else if (!existsSync(join(repoRoot, 'apps', app, 'package.json'))) problems.push(`apps/${app} does not exist`);
  }

  for (const [name, service] of Object.entries(services)) {
    const oneShot = service['restart'] === 'no';
    if (!oneShot && !hasHealthcheck(service)) problems.push(`service "${name}" has no healthcheck`);
  }

  const declaredVolumes = new Set(isObject(compose['volumes']) ? Object.keys(compose['volumes']) : []);
  for (const [name, service] of Object.entries(services)) {
    for (const [dependency, condition] of dependenciesOf(service)) {
      const target = services[dependency];
      if (!target) {
        problems.push(`service "${name}" depends on "${dependency}", which does not exist`);
      } else if (condition === 'service_healthy' && !hasHealthcheck(target)) {
        problems.push(`service "${name}" waits for "${dependency}" to be healthy, but it has no healthcheck`);
      }
    }
    const { named, hostPaths } = mountSourcesOf(service);
    for (const volume of named) {
      if (!declaredVolumes.has(volume)) problems.push(`service "${name}" mounts undeclared volume "${volume}"`);
    }
    for (const path of hostPaths) {
      if (!existsSync(resolve(repoRoot, path))) problems.push(`service "${name}" mounts missing host path "${path}"`);
    }
  }
  return problems;
}

/** Dockerfile lines that are instructions, not comments (so a comment may discuss alternatives). */
function dockerfileInstructions(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
}

function dockerfileViolations(text: string): string[] {
  const problems: string[] = [];
  const instructions = dockerfileInstructions(text);
  if (!/\bnpm install\b/.test(instructions)) problems.push('the Dockerfile does not run npm install');
  if (/\bnpm ci\b/.test(instructions)) problems.push('the Dockerfile runs npm ci, which fails on this lockfile');
  if (!/^ARG APP\b/m.test(instructions)) problems.push('the Dockerfile has no ARG APP');
  if (!/BURROW_APP/.test(instructions) || !/dist\/main\.js/.test(instructions)) {
    problems.push('the Dockerfile does not start apps/$BURROW_APP/dist/main.js');
  }
  if (!/^HEALTHCHECK\b[\s\S]*deploy\/healthcheck\.mjs/m.test(instructions))
    problems.push('the Dockerfile has no HEALTHCHECK running deploy/healthcheck.mjs');
  if (!/^USER (?!root\b)\S+/m.test(instructions)) problems.push('the Dockerfile does not switch to a non-root user');
  return problems;
}

// --- pinned images ------------------------------------------------------------------------------

/**
 * Why an image reference is not pinned, or null when it is: it must carry a version tag other
 * than `latest` (`name:1.2`, `registry:5000/org/name:1.2`) or a digest (`name@sha256:...`).
 */
function unpinnedReason(ref: string): string | null {
  if (/@sha256:[0-9a-f]{64}$/.test(ref)) return null;
  const lastSegment = ref.slice(ref.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  if (colon === -1) return `"${ref}" has no tag`;
  const tag = lastSegment.slice(colon + 1);
  if (tag === '' || tag === 'latest') return `"${ref}" is tagged latest`;
  if (tag.includes('${')) return `"${ref}" takes its tag from a variable`;
  return null;
}

/** The base images of a Dockerfile's stages (ARG defaults substituted), not counting earlier stages. */
function baseImagesOf(dockerfileText: string): string[] {
  const args = new Map<string, string>();
  const stages = new Set<string>();
  const images: string[] = [];
  for (const line of dockerfileInstructions(dockerfileText).split('\n')) {
    const arg = /^ARG\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)/.exec(line);
    if (arg && !args.has(arg[1])) args.set(arg[1], arg[2]);
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!from) continue;
    const image = from[1].replace(
      /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g,
      (whole, name: string) => args.get(name) ?? whole,
    );
    if (!stages.has(image) && image !== 'scratch') images.push(image);
    if (from[2]) stages.add(from[2]);
  }
  return images;
}

/** Every image the stack pulls or builds from that is not pinned, and every missing Dockerfile. */
function imagePinningViolations(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    const dockerfile = dockerfileOf(service);
    const image = typeof service['image'] === 'string' ? service['image'] : undefined;
    if (!dockerfile && !image) problems.push(`service "${name}" has neither an image nor a build`);
    // a built service's `image` names what it builds; only pulled images must exist upstream
    if (image && !dockerfile) {
      const reason = unpinnedReason(image);
      if (reason) problems.push(`service "${name}": ${reason}`);
    }
    if (!dockerfile) continue;
    if (!existsSync(join(repoRoot, dockerfile))) {
      problems.push(`service "${name}" is built from ${dockerfile}, which does not exist`);
      continue;
    }
    const bases = baseImagesOf(readRepoFile(dockerfile));
    if (bases.length === 0) problems.push(`${dockerfile} has no FROM`);
    for (const base of bases) {
      const reason = unpinnedReason(base);
      if (reason) problems.push(`${dockerfile} (service "${name}"): ${reason}`);
    }
  }
  return problems;
}

// --- tests -------------------------------------------------------------------------------------

const validateCompose = compileComposeValidator();

test('docker-compose.yml validates against the vendored compose-spec schema', () => {
  assert.deepEqual(validateCompose(loadCompose()), []);
});

test('docker-compose.yml follows the Burrow deployment rules', () => {
  assert.deepEqual(deploymentRuleViolations(loadCompose()), []);
});

test('deploy/Dockerfile exists and installs with npm install', () => {
  assert.ok(existsSync(join(repoRoot, DOCKERFILE)), `${DOCKERFILE} is missing`);
  assert.deepEqual(dockerfileViolations(readRepoFile(DOCKERFILE)), []);
});

test('every image is pinned (no latest, no untagged) and every built image has its Dockerfile', () => {
  assert.deepEqual(imagePinningViolations(loadCompose()), []);
});

test('the app images run Node 26, the newest major package.json engines admits (24 and 26)', () => {
  const engines = (JSON.parse(readRepoFile('package.json')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, '>=24 <27', `engines.node is "${engines}"`);
  const bases = baseImagesOf(readRepoFile(DOCKERFILE));
  assert.ok(bases.length > 0);
  for (const base of bases) assert.match(base, /^node:26\.\d+\.\d+-/, `${DOCKERFILE} builds from ${base}`);
});

test('the image installs without install scripts: no package but the known ones has one', () => {
  // deploy/Dockerfile runs `npm install --ignore-scripts`; what each known script is for, and why
  // the image does without it, is said there. A new one must be looked at before it is skipped.
  const known = ['node_modules/better-sqlite3', 'node_modules/nx', 'node_modules/protobufjs'];
  assert.match(dockerfileInstructions(readRepoFile(DOCKERFILE)), /\bnpm install\b[^\n]*--ignore-scripts/);
  const lock = JSON.parse(readRepoFile('package-lock.json')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path);
  assert.deepEqual(
    withScripts.filter((path) => !known.includes(path)),
    [],
  );
});

test('the blob server image builds the MinIO version scripts/ensure-minio.sh builds for the tests', () => {
  const pinned = /^PINNED_VERSION="([^"]+)"/m.exec(readRepoFile('scripts/ensure-minio.sh'))?.[1];
  const built = /^ARG MINIO_VERSION=(\S+)/m.exec(readRepoFile('deploy/minio/Dockerfile'))?.[1];
  assert.ok(pinned, 'no PINNED_VERSION in scripts/ensure-minio.sh');
  assert.equal(built, pinned);
});

test('the container healthcheck script exists and probes /healthz and the NATS services', () => {
  const script = readRepoFile('deploy/healthcheck.mjs');
  assert.match(script, /\/healthz/);
  for (const app of APP_SERVICES.filter((a) => a !== 'gateway')) assert.match(script, new RegExp(`'${app}'`));
});

test('config files mounted by the compose stack exist', () => {
  for (const path of ['deploy/nats/nats.conf', 'deploy/edge/Caddyfile', 'deploy/.env.example']) {
    assert.ok(existsSync(join(repoRoot, path)), `${path} is missing`);
  }
});

test('every required compose variable is documented in deploy/.env.example', () => {
  const compose = readRepoFile('docker-compose.yml');
  const example = readRepoFile('deploy/.env.example');
  const required = new Set([...compose.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]));
  assert.ok(required.size > 0, 'expected required variables (${VAR:?...}) in docker-compose.yml');
  for (const name of required) {
    assert.match(example, new RegExp(`^${name}=`, 'm'), `${name} is required by compose but not in .env.example`);
  }
});

// The checks above must be able to fail: feed each one a deliberately broken copy.

test('the schema check rejects an invalid compose file', () => {
  const broken = structuredClone(loadCompose());
  broken.services['gateway']['not_a_compose_key'] = true;
  assert.notDeepEqual(validateCompose(broken), []);
  const badExpose = structuredClone(loadCompose());
  badExpose.services['gateway']['expose'] = ['eighty'];
  assert.notDeepEqual(validateCompose(badExpose), []);
});

test('the rule check rejects a gateway that cannot scale', () => {
  const withPorts = structuredClone(loadCompose());
  withPorts.services['gateway']['ports'] = ['8080:8080'];
  const problems = deploymentRuleViolations(withPorts);
  assert.ok(
    problems.some((p) => p.startsWith('gateway publishes ports')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('only "edge" may')),
    problems.join('\n'),
  );

  const withName = structuredClone(loadCompose());
  withName.services['gateway']['container_name'] = 'burrow-gateway';
  assert.ok(deploymentRuleViolations(withName).some((p) => p.startsWith('gateway sets container_name')));
});

test('the rule check rejects a missing NATS_URL and a dangling depends_on', () => {
  const compose = structuredClone(loadCompose());
  const billing = compose.services['billing'];
  const env = Object.fromEntries(environmentOf(billing));
  delete env['NATS_URL'];
  billing['environment'] = env;
  billing['depends_on'] = { 'no-such-service': { condition: 'service_started' } };
  const problems = deploymentRuleViolations(compose);
  assert.ok(problems.includes('app service "billing" does not set NATS_URL'), problems.join('\n'));
  assert.ok(
    problems.some((p) => p.includes('"no-such-service", which does not exist')),
    problems.join('\n'),
  );
});

test('the pinning check rejects latest, untagged and variable tags, and a missing Dockerfile', () => {
  for (const ref of ['postgres', 'minio/minio:latest', 'registry.example:5000/burrow/app', 'caddy:${CADDY_VERSION}']) {
    assert.ok(unpinnedReason(ref), `${ref} counted as pinned`);
  }
  for (const ref of [
    'postgres:17.6-bookworm',
    'registry.example:5000/burrow/app:1.2',
    `node@sha256:${'a'.repeat(64)}`,
  ]) {
    assert.equal(unpinnedReason(ref), null, `${ref} counted as unpinned`);
  }
  const compose = structuredClone(loadCompose());
  compose.services['mongodb']['image'] = 'mongo';
  compose.services['minio']['build'] = { context: 'deploy/minio', dockerfile: 'NoSuchDockerfile' };
  const problems = imagePinningViolations(compose);
  assert.ok(
    problems.some((p) => p.includes('"mongo" has no tag')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('NoSuchDockerfile, which does not exist')),
    problems.join('\n'),
  );
  assert.deepEqual(
    baseImagesOf('ARG BASE=node:latest\nFROM ${BASE} AS build\nFROM build AS runtime\nFROM alpine\n').map(
      (b) => unpinnedReason(b) !== null,
    ),
    [true, true],
    'ARG defaults are substituted and earlier stages are not images',
  );
});

test('the healthcheck rule rejects a service without one', () => {
  const compose = structuredClone(loadCompose());
  delete compose.services['mongodb']['healthcheck'];
  compose.services['billing']['healthcheck'] = { disable: true };
  const problems = deploymentRuleViolations(compose);
  assert.ok(problems.includes('service "mongodb" has no healthcheck'), problems.join('\n'));
  assert.ok(problems.includes('service "billing" has no healthcheck'), problems.join('\n'));
});

test('the Dockerfile check rejects npm ci', () => {
  const dockerfile = readRepoFile(DOCKERFILE).replace(/\bnpm install\b/g, 'npm ci');
  const problems = dockerfileViolations(dockerfile);
  assert.ok(
    problems.some((p) => p.includes('runs npm ci')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('does not run npm install')),
    problems.join('\n'),
  );
});
