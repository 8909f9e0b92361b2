/**
 * The billing handlers against the embedded event store and in-memory read models, with a fixed
 * clock and stand-in card processors: read-your-writes, the decline path, an unreachable processor,
 * and what reaches the events and the logs.
 */
import { Streams } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { SqliteEventStore } from '@burrow/event-store';
import { ProjectionRunner } from '@burrow/eventsourcing';
import { createLogger } from '@burrow/runtime';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expectError } from '@burrow/testing/expect-error';
import type { CardProcessor } from '../card-processor/card-processor.js';
import { LocalCardProcessor } from '../card-processor/local-card-processor.js';
import type { BillingContext } from '../context.js';
import { BillingHandlers } from './billing.handlers.js';
import { billingProjection } from './billing.projection.js';

const NOW = Date.UTC(2026, 2, 15, 12) / 1000;
const common = {
  name: 'Acme',
  address: ['1 Main St'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const SECRETS = ['4242424242424242', '4000000000009995', '5555555555554444', '7391', '8264', '5827'];

describe('billing handlers', () => {
  let dir: string;
  let store: SqliteEventStore;
  let runner: ProjectionRunner;
  let docs: MemoryDocumentStore;
  const logLines: string[] = [];
  let processor: CardProcessor = new LocalCardProcessor();
  let handlers: BillingHandlers;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-billing-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
    docs = new MemoryDocumentStore();
    runner = new ProjectionRunner(store, docs, [billingProjection()]);
    await runner.start();
    const log = createLogger('billing', 'trace', { write: (line: string) => void logLines.push(line) });
    const ctx: BillingContext = {
      store,
      docs,
      runner,
      clock: { now: () => NOW },
      log,
      processor: { authorize: (card) => processor.authorize(card) },
    };
    handlers = new BillingHandlers(ctx);
  });

  after(async () => {
    await runner.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the default before anything is set', async () => {
    assert.deepEqual(await handlers.get({ partnerId: 'p1' }), {
      billing_mode: 'invoice',
      name: null,
      address: null,
      city: null,
      state: null,
      postal_code: null,
      country: null,
      card: null,
      updated_at: null,
    });
  });

  it('refuses a missing partner id or an unknown mode', async () => {
    assert.deepEqual(
      (await expectError(handlers.setMode({ partnerId: 'p1', billing_mode: 'weekly' }), 400)).body.fields,
      ['billing_mode'],
    );
    assert.deepEqual(
      (await expectError(handlers.setMode({ partnerId: '', billing_mode: 'prepaid' }), 400)).body.fields,
      ['partnerId'],
    );
    assert.deepEqual(
      (await expectError(handlers.get({ partnerId: undefined as unknown as string }), 400)).body.fields,
      ['partnerId'],
    );
  });

  it('stores invoice billing and reads it back at once', async () => {
    const view = await handlers.update({ partnerId: 'p1', billing: common });
    assert.deepEqual(view, { billing_mode: 'invoice', ...common, card: null, updated_at: NOW });
    assert.deepEqual(await handlers.get({ partnerId: 'p1' }), view);
  });

  it('prepaid: stores the card summary only', async () => {
    assert.equal((await handlers.setMode({ partnerId: 'p1', billing_mode: 'prepaid' })).billing_mode, 'prepaid');
    const view = await handlers.update({
      partnerId: 'p1',
      billing: {
        ...common,
        card_number: '4242-4242-4242-4242',
        security_code: '7391',
        expiration_month: '3',
        expiration_year: '2026',
      },
    });
    assert.deepEqual(view.card, { brand: 'visa', last4: '4242', expiration_month: 3, expiration_year: 2026 });
  });

  it('uses the injected clock for expiry', async () => {
    const err = await expectError(
      handlers.update({
        partnerId: 'p1',
        billing: {
          ...common,
          card_number: '4242424242424242',
          security_code: '7391',
          expiration_month: 2,
          expiration_year: 2026,
        },
      }),
      400,
    );
    assert.deepEqual(err.body.fields, ['expiration_month']);
  });

  it('a declined card: 409 with code and reason, a CardDeclined event, nothing else changed', async () => {
    const before = await handlers.get({ partnerId: 'p1' });
    const events = (await store.readStream(Streams.billing('p1'))).length;
    const err = await expectError(
      handlers.update({
        partnerId: 'p1',
        billing: {
          ...common,
          name: 'Other',
          card_number: '4000000000009995',
          security_code: '8264',
          expiration_month: 1,
          expiration_year: 2030,
        },
      }),
      409,
    );
    assert.deepEqual(err.body, {
      reason: 'the card has insufficient funds',
      code: 'insufficient_funds',
      conflicts: [],
    });
    assert.deepEqual(await handlers.get({ partnerId: 'p1' }), before);
    const stream = await store.readStream(Streams.billing('p1'));
    assert.equal(stream.length, events + 1);
    assert.equal(stream.at(-1)!.type, 'CardDeclined');
    assert.deepEqual(stream.at(-1)!.data, {
      code: 'insufficient_funds',
      reason: 'the card has insufficient funds',
      brand: 'visa',
      last4: '9995',
      at: NOW,
    });
  });

  it('an unreachable processor: 503 and nothing stored', async () => {
    processor = { authorize: () => Promise.reject(new Error('connect ETIMEDOUT while sending 5555555555554444')) };
    try {
      const before = await handlers.get({ partnerId: 'p1' });
      const events = (await store.readStream(Streams.billing('p1'))).length;
      await expectError(
        handlers.update({
          partnerId: 'p1',
          billing: {
            ...common,
            card_number: '5555555555554444',
            security_code: '5827',
            expiration_month: 1,
            expiration_year: 2030,
          },
        }),
        503,
      );
      assert.deepEqual(await handlers.get({ partnerId: 'p1' }), before);
      assert.equal((await store.readStream(Streams.billing('p1'))).length, events);
    } finally {
      processor = new LocalCardProcessor();
    }
  });

  it('switching to invoice drops the card; switching back asks for one', async () => {
    assert.equal((await handlers.setMode({ partnerId: 'p1', billing_mode: 'invoice' })).card, null);
    await handlers.setMode({ partnerId: 'p1', billing_mode: 'prepaid' });
    const err = await expectError(handlers.update({ partnerId: 'p1', billing: common }), 400);
    assert.deepEqual(err.body.fields, ['card_number', 'security_code', 'expiration_month', 'expiration_year']);
  });

  it('keeps partners apart', async () => {
    assert.equal((await handlers.get({ partnerId: 'p2' })).name, null);
    await handlers.update({ partnerId: 'p2', billing: { ...common, name: 'Second' } });
    assert.equal((await handlers.get({ partnerId: 'p2' })).name, 'Second');
    assert.equal((await handlers.get({ partnerId: 'p1' })).name, 'Acme');
  });

  it('no card number or security code reached the events or the trace-level logs', async () => {
    assert.ok(
      logLines.some((l) => l.includes('card declined')),
      'the logs were captured',
    );
    const events = await store.readStream(Streams.billing('p1'));
    const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n' + logLines.join('');
    for (const secret of SECRETS) {
      assert.doesNotMatch(text, new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`), `found ${secret}`);
    }
  });
});
