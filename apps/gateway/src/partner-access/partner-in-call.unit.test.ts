/**
 * `@AuthenticatedInCall()` routes: one bus message per request, to accounts, carrying the
 * credentials in place of the partner; the guard's answers kept (401 before a handler's own error,
 * a separate authentication for a call to another service). A fake accounts service on the
 * in-process bus records every message.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { badRequest, PARTNER_CREDENTIALS_FIELD, type WireError } from '@burrow/contracts';
import type { Logger } from '@burrow/runtime';
import { InProcessBus, InProcessClient, type RpcClient } from '@burrow/transport';
import { Controller, Get, type INestApplication, Inject, Module, Param, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import supertest from 'supertest';
import { HttpErrorFilter } from '../http/error.filter.js';
import { AuthenticatedInCall, PartnerRpcClient, type PartnerIdentity } from './partner-in-call.js';
import { PartnerGuard, PartnerId } from './partner.guard.js';
import { RPC } from '../http/tokens.js';

const RIGHT = { username: 'acme', password: 'right-password' };
const REFUSED: WireError = { burrowError: true, status: 401, reason: 'invalid partner credentials' };

@Controller()
@UseGuards(PartnerGuard)
class ProbeController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('in-call/:id')
  @AuthenticatedInCall()
  get(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<unknown> {
    if (id === 'bad') throw badRequest('bad id');
    return this.rpc.call('accounts.probe.get', { partnerId, id });
  }

  @Get('in-call-storage')
  @AuthenticatedInCall()
  storage(@PartnerId() partnerId: PartnerIdentity): Promise<unknown> {
    return this.rpc.call('storage.probe.get', { partnerId });
  }

  @Get('guarded')
  guarded(@PartnerId() partnerId: PartnerIdentity): Promise<unknown> {
    return this.rpc.call('accounts.probe.get', { partnerId, id: 'g' });
  }

  /** as if client input reached the payload under the credentials' field name */
  @Get('smuggled')
  smuggled(@PartnerId() partnerId: PartnerIdentity): Promise<unknown> {
    return this.rpc.call('accounts.probe.get', {
      partnerId,
      id: 's',
      [PARTNER_CREDENTIALS_FIELD]: { ...RIGHT, address: '203.0.113.9' },
    });
  }
}

describe('@AuthenticatedInCall() routes', () => {
  const bus = new InProcessBus();
  const sent: { subject: string; data: Record<string, unknown> }[] = [];
  let app: INestApplication;
  let http: ReturnType<typeof supertest>;

  const serve = (subject: string, answer: (data: Record<string, unknown>) => { err?: WireError; response?: unknown }) =>
    bus.subscribe(
      subject,
      (message, reply) => {
        const { id, data } = JSON.parse(message) as { id: string; data: Record<string, unknown> };
        sent.push({ subject, data });
        const { err = null, response = null } = answer(data);
        reply?.(JSON.stringify({ id, err, response, isDisposed: true }));
      },
      subject.split('.')[0],
    );
  const authenticated = (c: unknown) => {
    const { username, password } = (c ?? {}) as Record<string, unknown>;
    return username === RIGHT.username && password === RIGHT.password;
  };

  before(async () => {
    serve('accounts.partners.authenticate', (data) =>
      authenticated(data) ? { response: { partnerId: 'p-acme', username: 'acme' } } : { err: REFUSED },
    );
    serve('accounts.probe.get', (data) => {
      // what the accounts service's PartnerCredentialsGuard does
      if (!(PARTNER_CREDENTIALS_FIELD in data)) return { response: { partnerId: data.partnerId, id: data.id } };
      return authenticated(data[PARTNER_CREDENTIALS_FIELD])
        ? { response: { partnerId: 'p-acme', id: data.id } }
        : { err: REFUSED };
    });
    serve('storage.probe.get', (data) => ({ response: { partnerId: data.partnerId } }));
    const rpc = new PartnerRpcClient(new InProcessClient(bus));
    @Module({ controllers: [ProbeController], providers: [{ provide: RPC, useValue: rpc }, PartnerGuard] })
    class ProbeModule {}
    app = await NestFactory.create(ProbeModule, new ExpressAdapter(), { logger: false });
    const silent = { error() {}, warn() {}, info() {}, debug() {} } as unknown as Logger;
    app.useGlobalFilters(new HttpErrorFilter(silent));
    await app.init();
    http = supertest(app.getHttpServer());
  });
  after(async () => {
    await app.close();
  });
  beforeEach(() => {
    sent.length = 0;
  });

  it('sends one message, to accounts, with the credentials and the client address instead of a partner id', async () => {
    const res = await http.get('/in-call/u1').auth(RIGHT.username, RIGHT.password);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { partnerId: 'p-acme', id: 'u1' });
    assert.equal(sent.length, 1);
    assert.equal(sent[0].subject, 'accounts.probe.get');
    const { [PARTNER_CREDENTIALS_FIELD]: credentials, ...rest } = sent[0].data;
    assert.deepEqual(rest, { id: 'u1' }, 'no partnerId: accounts sets it from the authentication');
    assert.deepEqual(Object.keys(credentials as object).sort(), ['address', 'password', 'username']);
    assert.equal((credentials as { username: string }).username, RIGHT.username);
  });

  it('answers a refusal as the guard does: 401, its body and WWW-Authenticate', async () => {
    const res = await http.get('/in-call/u1').auth(RIGHT.username, 'wrong');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { reason: 'invalid partner credentials' });
    assert.equal(res.headers['www-authenticate'], 'Basic realm="burrow"');
    assert.equal(sent.length, 1, 'no second authentication');
    const missing = await http.get('/in-call/u1');
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.body, { reason: 'partner credentials required (HTTP Basic)' });
    assert.equal(sent.length, 1, 'no credentials: nothing sent');
  });

  it('a handler failing before its call: the credentials are checked first, and a refusal wins', async () => {
    const refused = await http.get('/in-call/bad').auth(RIGHT.username, 'wrong');
    assert.equal(refused.status, 401);
    assert.deepEqual(
      sent.map((m) => m.subject),
      ['accounts.partners.authenticate'],
    );
    const bad = await http.get('/in-call/bad').auth(RIGHT.username, RIGHT.password);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { reason: 'bad id' });
  });

  it('a call to another service gets the partner from a separate authentication first', async () => {
    const res = await http.get('/in-call-storage').auth(RIGHT.username, RIGHT.password);
    assert.deepEqual(res.body, { partnerId: 'p-acme' });
    assert.deepEqual(
      sent.map((m) => m.subject),
      ['accounts.partners.authenticate', 'storage.probe.get'],
    );
    assert.ok(!(PARTNER_CREDENTIALS_FIELD in sent[1].data));
    assert.equal((await http.get('/in-call-storage').auth(RIGHT.username, 'wrong')).status, 401);
    assert.equal(sent.at(-1)!.subject, 'accounts.partners.authenticate');
  });

  it('other routes keep the guard: authenticate, then the call with the partner id', async () => {
    const res = await http.get('/guarded').auth(RIGHT.username, RIGHT.password);
    assert.deepEqual(res.body, { partnerId: 'p-acme', id: 'g' });
    assert.deepEqual(
      sent.map((m) => [m.subject, m.data.partnerId]),
      [
        ['accounts.partners.authenticate', undefined],
        ['accounts.probe.get', 'p-acme'],
      ],
    );
  });

  it('credentials reach accounts only from the stand-in: a payload field of that name from elsewhere is dropped', async () => {
    const res = await http.get('/smuggled').auth(RIGHT.username, RIGHT.password);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(sent.at(-1)!.data, { partnerId: 'p-acme', id: 's' });
  });
});
