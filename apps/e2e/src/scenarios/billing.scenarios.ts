/**
 * Partner billing through the gateway (spec §2A "Billing information", §4A rule 5, §7 rows for
 * POST /partner/billing): 200 / 400 naming every field / 409 {reason, code} with nothing stored,
 * prepaid vs invoice, lenient numbers, content types, tenant isolation, and the promise that no
 * card number or security code reaches the event store, the data directory or the logs.
 */
import { type PartnerInfo, Subjects } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPartner, partnerApi } from '../harness/client.js';
import { allEvents } from '../harness/event-store.js';
import type { ScenarioContext } from './scenarios.js';

const BASES = ['', '/apis/accounts/v1'];
const YEAR = new Date().getUTCFullYear() + 3;
const ADDRESS = {
  name: 'Acme Backup Ltd',
  address: ['1 Main Street', 'Suite 200'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const CARD_FIELDS = ['card_number', 'security_code', 'expiration_month', 'expiration_year'];
const ALL_FIELDS = ['name', 'address', 'city', 'state', 'postal_code', 'country', ...CARD_FIELDS];
const EMPTY = {
  name: null,
  address: null,
  city: null,
  state: null,
  postal_code: null,
  country: null,
  card: null,
  updated_at: null,
};

/** The local processor's decline table (docs/billing.md). */
const DECLINES: [string, string][] = [
  ['4000000000000002', 'card_declined'],
  ['4000000000009995', 'insufficient_funds'],
  ['4000000000009987', 'lost_card'],
  ['4000000000009979', 'stolen_card'],
  ['4000000000000069', 'expired_card'],
  ['4000000000000127', 'incorrect_cvc'],
  ['4100000000000019', 'fraudulent'],
];

/** Security codes unlike any other number Burrow writes (no years, no small counters). */
const CODES = [
  '7391',
  '8264',
  '5827',
  '6403',
  '9158',
  '3719',
  '4682',
  '1593',
  '2847',
  '6935',
  '917',
  '538',
  '846',
  '3172',
  '7048',
];

/** A security code as a whole token: not part of a longer run of digits or letters (timestamps, ids). */
const tokenPattern = (code: string) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`);

/** Random UUIDs (partner and event ids) have all-digit 4-character groups by chance: not card data. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Everything submitted as a card number or security code, to look for afterwards. */
class SubmittedSecrets {
  readonly numbers = new Set<string>();
  readonly codes = new Set<string>();
  private next = 0;

  /** A prepaid body with `number` (as typed) and a fresh security code, both remembered. */
  card(number: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const security_code = CODES[this.next++ % CODES.length];
    this.numbers.add(number);
    this.numbers.add(number.replace(/\D/g, ''));
    this.codes.add(security_code);
    return { ...ADDRESS, card_number: number, security_code, expiration_month: 7, expiration_year: YEAR, ...overrides };
  }

  /** Every secret that occurs in `text`, for an assertion message. */
  foundIn(text: string): string[] {
    const withoutIds = text.replace(UUID, '<uuid>');
    return [
      ...[...this.numbers].filter((n) => text.includes(n)),
      ...[...this.codes].filter((c) => tokenPattern(c).test(withoutIds)),
    ];
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

export function billingScenarios({ target }: ScenarioContext) {
  const secrets = new SubmittedSecrets();
  const api = () => partnerApi(target());
  const setMode = (partnerId: string, billing_mode: string) =>
    target().operator.call<Record<string, unknown>>(Subjects.billing.setBillingMode, { partnerId, billing_mode });
  /** A partner of its own, so each scenario starts from "never set". */
  const freshPartner = async (mode?: 'prepaid' | 'invoice') => {
    const { info, api: partner, credentials } = await createPartner(target());
    if (mode) await setMode(info.partner_id, mode);
    return { api: partner, partnerId: info.partner_id, credentials };
  };

  for (const base of BASES) {
    it(`GET ${base}/partner/billing before any POST: the invoice default and null fields`, async () => {
      const { api: partner } = await freshPartner();
      const res = await partner.get(`${base}/partner/billing`).expect(200);
      assert.deepEqual(res.body, { billing_mode: 'invoice', ...EMPTY });
    });

    it(`POST ${base}/partner/billing (invoice): 200, and GET returns what was stored`, async () => {
      const { api: partner } = await freshPartner();
      const res = await partner.post(`${base}/partner/billing`, ADDRESS).expect(200);
      assert.equal(res.body.billing_mode, 'invoice');
      assert.deepEqual(
        { ...res.body, updated_at: undefined },
        { billing_mode: 'invoice', ...ADDRESS, card: null, updated_at: undefined },
      );
      assert.equal(typeof res.body.updated_at, 'number');
      assert.deepEqual((await partner.get(`${base}/partner/billing`).expect(200)).body, res.body);
    });
  }

  it('the partner from the environment is billed by invoice until the operator says otherwise', async () => {
    const res = await api().get('/partner/billing').expect(200);
    assert.equal(res.body.billing_mode, 'invoice');
  });

  it('invoice: card fields are refused with 400 naming them, and nothing is stored', async () => {
    const { api: partner } = await freshPartner('invoice');
    await partner.post('/partner/billing', ADDRESS).expect(200);
    const before = (await partner.get('/partner/billing').expect(200)).body;
    const res = await partner
      .post('/partner/billing', { ...secrets.card('4242424242424242'), name: 'Changed' })
      .expect(400);
    assert.deepEqual(res.body.fields, CARD_FIELDS);
    assert.equal(typeof res.body.reason, 'string');
    assert.deepEqual((await partner.get('/partner/billing').expect(200)).body, before);
  });

  it('400 names every missing field together (invoice: the six common ones; prepaid: all ten)', async () => {
    const invoice = await freshPartner('invoice');
    for (const body of [{}, undefined]) {
      const res = await invoice.api.post('/partner/billing', body).expect(400);
      assert.deepEqual(res.body.fields, ALL_FIELDS.slice(0, 6));
    }
    const prepaid = await freshPartner('prepaid');
    const res = await prepaid.api.post('/partner/billing', {}).expect(400);
    assert.deepEqual(res.body.fields, ALL_FIELDS);
    const partial = await prepaid.api
      .post('/partner/billing', { name: 'Acme', city: 'Springfield', security_code: '123' })
      .expect(400);
    assert.deepEqual(partial.body.fields, [
      'address',
      'state',
      'postal_code',
      'country',
      'card_number',
      'expiration_month',
      'expiration_year',
    ]);
    assert.deepEqual((await prepaid.api.get('/partner/billing').expect(200)).body, {
      billing_mode: 'prepaid',
      ...EMPTY,
    });
  });

  it('400 names every invalid field together, and nothing is stored', async () => {
    const { api: partner } = await freshPartner('prepaid');
    const res = await partner
      .post('/partner/billing', {
        ...secrets.card('4242 4242 4242 4241', {
          security_code: '12',
          expiration_month: 13,
          expiration_year: YEAR - 5,
        }),
        name: '',
        address: [],
        city: 42,
        state: ' ',
        postal_code: ['62701'],
        country: 'XX',
      })
      .expect(400);
    assert.deepEqual(res.body.fields, ALL_FIELDS);
    assert.ok(
      !res.text.includes('4242424242424241') && !res.text.includes('4242 4242 4242 4241'),
      'the error must not echo the number',
    );
    for (const [field, value] of [
      ['country', 'UK'],
      ['card_number', '4242-4242-4242-4243'],
      ['security_code', '12345'],
      ['expiration_month', 0],
      ['expiration_year', 29],
    ] as const) {
      const one = await partner
        .post('/partner/billing', { ...secrets.card('4242424242424242'), [field]: value })
        .expect(400);
      assert.deepEqual(one.body.fields, [field], `${field} = ${value}`);
    }
    assert.deepEqual((await partner.get('/partner/billing').expect(200)).body, { billing_mode: 'prepaid', ...EMPTY });
  });

  it('prepaid: an approved card is stored as brand, last4 and expiry only', async () => {
    const { api: partner } = await freshPartner('prepaid');
    const cards: [string, string, string][] = [
      ['4242 4242 4242 4242', 'visa', '4242'],
      ['5555-5555-5555-4444', 'mastercard', '4444'],
      ['378282246310005', 'amex', '0005'],
      ['6011111111111117', 'discover', '1117'],
    ];
    for (const [number, brand, last4] of cards) {
      const body = secrets.card(number);
      const res = await partner.post('/partner/billing', body).expect(200);
      assert.deepEqual(res.body, {
        billing_mode: 'prepaid',
        ...ADDRESS,
        card: { brand, last4, expiration_month: 7, expiration_year: YEAR },
        updated_at: res.body.updated_at,
      });
      const got = await partner.get('/partner/billing').expect(200);
      assert.deepEqual(got.body, res.body);
      for (const text of [res.text, got.text]) {
        assert.deepEqual(
          secrets.foundIn(text).filter((s) => s.length > 4 || s === body.security_code),
          [],
          'a reply holds card data',
        );
      }
    }
  });

  it('prepaid: a card the processor rejects gets 409 {reason, code} and nothing is stored', async () => {
    const { api: partner } = await freshPartner('prepaid');
    await partner.post('/partner/billing', secrets.card('4242424242424242')).expect(200);
    const before = (await partner.get('/partner/billing').expect(200)).body;
    for (const [number, code] of DECLINES) {
      const res = await partner
        .post('/partner/billing', { ...secrets.card(number), name: 'Someone Else', city: 'Elsewhere' })
        .expect(409);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'conflicts', 'reason']);
      assert.deepEqual(res.body.conflicts, [], 'every 409 carries a conflicts list (CLIENT-FACTS)');
      assert.equal(res.body.code, code);
      assert.equal(typeof res.body.reason, 'string');
      assert.ok(res.body.reason.length > 0);
      assert.deepEqual(
        (await partner.get('/partner/billing').expect(200)).body,
        before,
        `${code}: the previous state must be unchanged`,
      );
    }
    // a first-time partner whose first card is refused keeps "nothing stored"
    const first = await freshPartner('prepaid');
    await first.api.post('/partner/billing', secrets.card('4000000000000002')).expect(409);
    assert.deepEqual((await first.api.get('/partner/billing').expect(200)).body, { billing_mode: 'prepaid', ...EMPTY });
  });

  it('prepaid needs the card fields; switching to invoice drops the card on file', async () => {
    const { api: partner, partnerId } = await freshPartner('prepaid');
    const missing = await partner.post('/partner/billing', ADDRESS).expect(400);
    assert.deepEqual(missing.body.fields, CARD_FIELDS);
    await partner.post('/partner/billing', secrets.card('4242424242424242')).expect(200);
    const view = await setMode(partnerId, 'invoice');
    assert.equal(view.billing_mode, 'invoice');
    assert.equal(view.card, null);
    const got = (await partner.get('/partner/billing').expect(200)).body;
    assert.deepEqual({ ...got, updated_at: 0 }, { billing_mode: 'invoice', ...ADDRESS, card: null, updated_at: 0 });
    await partner.post('/partner/billing', { ...ADDRESS, city: 'Chicago' }).expect(200);
  });

  it('numbers may arrive as numeric strings', async () => {
    const { api: partner } = await freshPartner('prepaid');
    const res = await partner
      .post(
        '/partner/billing',
        secrets.card('4242-4242-4242-4242', {
          expiration_month: '07',
          expiration_year: String(YEAR),
          security_code: '3719',
        }),
      )
      .expect(200);
    assert.deepEqual(res.body.card, { brand: 'visa', last4: '4242', expiration_month: 7, expiration_year: YEAR });
  });

  it('JSON is accepted under text/javascript, application/json and application/x-www-form-urlencoded', async () => {
    const { api: partner } = await freshPartner('prepaid');
    for (const contentType of ['text/javascript', 'application/json', 'application/x-www-form-urlencoded']) {
      const res = await partner
        .post('/partner/billing', { ...secrets.card('6011111111111117'), name: `Sent as ${contentType}` }, contentType)
        .expect(200);
      assert.equal(res.body.name, `Sent as ${contentType}`);
      assert.equal((await partner.get('/partner/billing').expect(200)).body.name, `Sent as ${contentType}`);
    }
  });

  it('tenant isolation: a partner sees and changes only its own billing', async () => {
    const info = (await api().get('/partner/info').expect(200)).body as PartnerInfo;
    const first = { api: api(), partnerId: info.partner_id };
    await first.api.post('/partner/billing', { ...ADDRESS, name: 'First Partner' }).expect(200);
    const firstView = (await first.api.get('/partner/billing').expect(200)).body;

    const second = await freshPartner();
    assert.notEqual(second.partnerId, first.partnerId);
    assert.deepEqual((await second.api.get('/partner/billing').expect(200)).body, {
      billing_mode: 'invoice',
      ...EMPTY,
    });
    await setMode(second.partnerId, 'prepaid');
    await second.api
      .post('/partner/billing', { ...secrets.card('5555555555554444'), name: 'Second Partner' })
      .expect(200);
    assert.equal((await second.api.get('/partner/billing').expect(200)).body.name, 'Second Partner');
    assert.deepEqual((await first.api.get('/partner/billing').expect(200)).body, firstView);
    // the first partner is still billed by invoice: a card is refused there
    await first.api.post('/partner/billing', secrets.card('4242424242424242')).expect(400);
  });

  it('every gateway reads what another one just wrote', async () => {
    const { credentials } = await freshPartner('invoice');
    for (const [i, url] of target().urls.entries()) {
      const name = `Replicated ${i}`;
      await partnerApi(target(), url, credentials)
        .post('/partner/billing', { ...ADDRESS, name })
        .expect(200);
      for (const other of target().urls) {
        assert.equal(
          (await partnerApi(target(), other, credentials).get('/partner/billing').expect(200)).body.name,
          name,
        );
      }
    }
  });

  it('the operator subject refuses an unknown billing mode and a missing partner id', async () => {
    await assert.rejects(setMode('some-partner', 'monthly'), (e: { status?: number; body?: { fields?: string[] } }) => {
      assert.equal(e.status, 400);
      assert.deepEqual(e.body?.fields, ['billing_mode']);
      return true;
    });
    await assert.rejects(
      target().operator.call(Subjects.billing.setBillingMode, { billing_mode: 'prepaid' }),
      (e: { status?: number }) => e.status === 400,
    );
  });

  it('no submitted card number or security code is anywhere in the event store or the data directory', async () => {
    assert.ok(secrets.numbers.size >= 10 && secrets.codes.size >= 10, 'the scenarios above submitted cards');
    const store = await target().openEventStore();
    let rows: { stream: string; type: string; data: string; metadata: string }[];
    try {
      rows = (await allEvents(store)).map((e) => ({
        stream: e.stream,
        type: e.type,
        data: JSON.stringify(e.data),
        metadata: JSON.stringify(e.metadata),
      }));
    } finally {
      await store.close();
    }
    assert.ok(
      rows.some((r) => r.type === 'CardDeclined'),
      'declines were recorded',
    );
    assert.ok(
      rows.some((r) => r.type === 'BillingInformationUpdated' && r.data.includes('"last4"')),
      'cards were recorded',
    );
    for (const row of rows) {
      const leaked = secrets.foundIn(`${row.data}\n${row.metadata}`);
      assert.deepEqual(leaked, [], `event ${row.type} on ${row.stream} holds card data`);
    }
    // Every byte at rest (SQLite file, WAL, blobs, anything else): no card number in any form typed.
    for (const file of await filesUnder(target().dataDir)) {
      const bytes = await readFile(file);
      for (const number of secrets.numbers) assert.ok(!bytes.includes(number), `${file} holds a card number`);
    }
  });

  it('no card number or security code reaches the logs, even at trace level', async (t) => {
    if (target().mode !== 'standalone') {
      t.skip('log capture runs once, in the standalone suite (a child process with its own bus and data)');
      return;
    }
    await logScenario();
  });
}

const here = dirname(fileURLToPath(import.meta.url));
const HARNESS = pathToFileURL(resolve(here, '../harness/standalone.js')).href;

/**
 * Boots Burrow through the standalone harness in a child process at LOG_LEVEL=trace (pino writes
 * to the child's stdout), runs billing flows over HTTP, and scans everything the child printed.
 */
async function logScenario(): Promise<void> {
  const script = `
    const { startStandalone } = await import(${JSON.stringify(HARNESS)});
    const target = await startStandalone({ LOG_LEVEL: 'trace' });
    const { partnerId } = await target.operator.call(${JSON.stringify(Subjects.accounts.authenticatePartner)}, target.partner);
    await target.operator.call(${JSON.stringify(Subjects.billing.setBillingMode)}, { partnerId, billing_mode: 'prepaid' });
    process.stdout.write('\\nBURROW_TEST_TARGET ' + JSON.stringify({ url: target.url, partner: target.partner }) + '\\n');
    process.once('SIGTERM', async () => { await target.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  try {
    const deadline = Date.now() + 30_000;
    let marker: RegExpMatchArray | null = null;
    while (!(marker = output.match(/BURROW_TEST_TARGET (\{.*\})\n/))) {
      if (child.exitCode !== null || Date.now() > deadline)
        assert.fail(`the child did not start:\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const { url, partner } = JSON.parse(marker[1]) as { url: string; partner: { username: string; password: string } };
    const secrets = new SubmittedSecrets();
    const client = partnerApi({ url, partner } as never, url, partner);
    await client.post('/partner/billing', secrets.card('4242 4242 4242 4242')).expect(200);
    await client
      .post('/partner/billing', secrets.card('378282246310005'), 'application/x-www-form-urlencoded')
      .expect(200);
    for (const [number] of DECLINES) await client.post('/partner/billing', secrets.card(number)).expect(409);
    await client.post('/partner/billing', secrets.card('4242-4242-4242-4241', { expiration_month: 13 })).expect(400);
    await client.post('/partner/billing', secrets.card('5555555555554444', { expiration_year: 1999 })).expect(400);
    await client.get('/partner/billing').expect(200);

    child.kill('SIGTERM');
    assert.equal(await exited, 0, output.slice(-4000));
    // pino's own fields (pid, time, hostname) are numbers Burrow does not choose: leave them out.
    const scanned = output
      .split('\n')
      .map((line) => {
        try {
          const { pid: _p, time: _t, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
          return JSON.stringify(rest);
        } catch {
          return line;
        }
      })
      .join('\n');
    assert.match(scanned, /"msg":"card declined"/, 'billing logs were captured');
    assert.match(scanned, /"msg":"billing information updated"/);
    assert.match(scanned, /"msg":"request"/, 'debug-level gateway logs were captured');
    assert.deepEqual(secrets.foundIn(scanned), [], 'the logs hold card data');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
