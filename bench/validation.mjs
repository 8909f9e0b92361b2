#!/usr/bin/env node
/**
 * What validating a request costs: the zod schemas Burrow parses request bodies with
 * (contracts, `parseRequest`), next to the hand-written field-spec parser they replaced (kept
 * below only as this benchmark's baseline), on the same bodies in the same run. Prints
 * microseconds per parse and the ratio to the baseline, and puts the cost next to a whole
 * request through the gateway (GET /ping: authentication, the bus, HTTP) from the same run.
 *
 *   npm run bench:validation
 */
import { Agent, request } from 'node:http';

const { CreateUserBody, UpdateSettingsBody, parseRequest } = await import('../libs/contracts/dist/index.js');
const { startStandalone } = await import('../apps/e2e/dist/harness/standalone.js');

// ---- baseline: the hand-written parser Burrow used before zod (libs/contracts coerce.ts) ------
const INVALID = Symbol('invalid');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const coerceInt = (v) =>
  typeof v === 'number' && Number.isSafeInteger(v)
    ? v
    : typeof v === 'string' && /^\s*-?\d{1,16}\s*$/.test(v)
      ? Number(v.trim())
      : INVALID;
function coerceBool(v) {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
  }
  return INVALID;
}
function coerceField(value, spec) {
  if (value === null) return spec.nullable ? null : INVALID;
  switch (spec.kind) {
    case 'int':
      return coerceInt(value);
    case 'nonNegativeInt': {
      const n = coerceInt(value);
      return n === INVALID || n < 0 ? INVALID : n;
    }
    case 'bool':
      return coerceBool(value);
    default: {
      if (typeof value !== 'string') return INVALID;
      const s = value.trim();
      if (spec.kind !== 'string' && s.length === 0) return INVALID;
      if (spec.maxLength !== undefined && s.length > spec.maxLength) return INVALID;
      if (spec.kind === 'email' && !EMAIL.test(s)) return INVALID;
      return s;
    }
  }
}
function parseFields(body, specs) {
  const out = {};
  const invalid = [];
  for (const [key, value] of Object.entries(body)) {
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (!spec) continue;
    const coerced = coerceField(value, spec);
    if (coerced === INVALID) invalid.push(key);
    else out[key] = coerced;
  }
  for (const [key, spec] of Object.entries(specs)) if (spec.required && !(key in body)) invalid.push(key);
  if (invalid.length) throw new Error(invalid.join(','));
  return out;
}
const USER_SPECS = {
  name: { kind: 'nonEmptyString', maxLength: 255, required: true },
  email: { kind: 'email', maxLength: 254, required: true },
  plan_id: { kind: 'int' },
  group_id: { kind: 'int', nullable: true },
  bonus_bytes: { kind: 'nonNegativeInt' },
  bonus_gigs: { kind: 'nonNegativeInt' },
  enabled: { kind: 'bool' },
  purgehold_active: { kind: 'bool' },
  password: { kind: 'string' },
  username: { kind: 'nonEmptyString', maxLength: 128 },
};

// ---- the bodies ---------------------------------------------------------------------------
const user = {
  name: ' Jane Doe ',
  email: 'jane@example.com',
  username: 'jdoe',
  plan_id: '2',
  group_id: 3,
  bonus_gigs: '5',
  enabled: 'True',
  password: 'a-long-password',
};
const badUser = { name: '', email: 'nope', plan_id: 'x', enabled: 'perhaps' };
const settings = {
  share_link_ttl: '60',
  autopurge_interval: null,
  ad_domain: 'Corp.Example.com',
  signup_network_restriction: ['10.0.0.0/8'],
  sharing_enabled: 'yes',
};

function perParse(fn, iterations = 200_000) {
  for (let i = 0; i < 20_000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - t) / 1e3 / iterations; // µs
}
const swallow = (fn) => () => {
  try {
    fn();
  } catch {
    /* measured: the 400 path */
  }
};

const rows = [];
const baseValid = perParse(() => parseFields(user, USER_SPECS));
const baseInvalid = perParse(swallow(() => parseFields(badUser, USER_SPECS)));
rows.push(['baseline: hand-written parser, user body', baseValid, 1]);
rows.push(['zod parseRequest(CreateUserBody), valid', perParse(() => parseRequest(CreateUserBody, user)), null]);
rows.push(['baseline: hand-written parser, invalid user body', baseInvalid, 1]);
rows.push([
  'zod parseRequest(CreateUserBody), invalid (400)',
  perParse(swallow(() => parseRequest(CreateUserBody, badUser))),
  null,
]);
rows.push([
  'zod parseRequest(UpdateSettingsBody), valid',
  perParse(() => parseRequest(UpdateSettingsBody, settings), 50_000),
  null,
]);

// ---- a whole request, for scale -------------------------------------------------------------
const target = await startStandalone();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const auth = 'Basic ' + Buffer.from(`${target.partner.username}:${target.partner.password}`).toString('base64');
const ping = () =>
  new Promise((resolve, reject) => {
    const u = new URL(`${target.url}/ping`);
    request({ host: u.hostname, port: u.port, path: u.pathname, agent, headers: { authorization: auth } }, (res) => {
      res.resume();
      res.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
for (let i = 0; i < 200; i++) await ping();
const N = 2000;
const t = process.hrtime.bigint();
for (let i = 0; i < N; i++) await ping();
const requestUs = Number(process.hrtime.bigint() - t) / 1e3 / N;
await target.close();
agent.destroy();

console.log(`validation cost per request body, ${new Date().toISOString()}`);
console.log(
  `${'what'.padEnd(52)} ${'µs/parse'.padStart(9)} ${'vs baseline'.padStart(12)} ${'of a request'.padStart(13)}`,
);
for (const [name, us] of rows) {
  const base = name.includes('invalid') ? baseInvalid : baseValid;
  console.log(
    `${name.padEnd(52)} ${us.toFixed(2).padStart(9)} ${(us / base).toFixed(2).padStart(11)}x ${((100 * us) / requestUs).toFixed(2).padStart(12)}%`,
  );
}
console.log(`${'a whole GET /ping through the gateway (sequential)'.padEnd(52)} ${requestUs.toFixed(0).padStart(9)}`);
