/**
 * Hostile input at the edge: every body the gateway accepts must be one it can send over the bus
 * and a service can validate, and every malformed request is a JSON 400 that names what is wrong,
 * never a 503, a hang or a silent default.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { partnerApi } from '../harness/client.js';
import { assertBadFields, assertError } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);

export function hostileInputScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  it('deeply nested JSON (5,000 and 100,000 levels) is a 400 at the edge on every body-taking route, and the services still answer', async () => {
    for (const levels of [5_000, 100_000]) {
      for (const path of ['/partner/settings', '/partner/billing', '/users/', '/groups/', '/partner/password']) {
        const res = await api()
          .post(path)
          .send(`{"name": ${nested(levels)}}`);
        assertError(res, 400);
        assert.match(res.body.reason, /nests deeper/, `${path} at ${levels} levels: ${res.text}`);
      }
    }
    // a bare array of arrays, and arrays inside strings do not count
    assertError(await api().post('/partner/settings').send(nested(40)), 400);
    await api().get('/partner/settings').expect(200);
    await api().get('/partner/billing').expect(200);
  });

  it('nesting within the limit is judged by the schema, not refused for its depth', async () => {
    const res = await api()
      .post('/partner/settings')
      .send(`{"colour": ${nested(20)}, "note": "${'['.repeat(100)}"}`);
    assertBadFields(res, ['colour', 'note']);
  });

  it('a body of more values than any request needs is a 400', async () => {
    const res = await api()
      .post('/partner/settings')
      .send(`{"signup_network_restriction": [${Array.from({ length: 60_000 }, () => '1').join(',')}]}`);
    assertError(res, 400);
    assert.match(res.body.reason, /more than/);
  });

  it('a repeated or bracketed query parameter is a 400 naming it, never ignored', async () => {
    for (const query of [
      'limit[]=1',
      'limit=1&limit=2',
      'plan_id[$ne]=1',
      'search[$regex]=.*',
      'group_id[]=1&group_id[]=2',
      'offset[gt]=0',
    ]) {
      const res = await api().get(`/users/?${query}`);
      const name = query.split(/[[=]/)[0];
      assertBadFields(res, [name]);
    }
    assertBadFields(await api().get('/shares/?limit[]=5'), ['limit']);
    assertBadFields(await api().get('/clientrevisions/?min_revision=1&min_revision=2'), ['min_revision']);
    assertBadFields(await api().delete('/groups/1?move_to[]=2'), ['move_to']);
    // unknown parameters stay ignored, as clients add cache busters
    await api().get('/users/?_=123&cb=9&limit=1').expect(200);
  });

  it('a NUL character in a path, a query, a JSON body or Basic credentials is refused at the edge (400/401), never reaching a database', async () => {
    for (const url of [
      '/users/x%00y',
      '/users/?search_by=ab%00',
      '/groups/1%00',
      '/shares/?limit=5%00',
      '/storage/%00/',
      '/share/abc%00/key/',
    ]) {
      const res = await api().get(url);
      assertError(res, 400);
      assert.match(res.body.reason, /NUL/, `${url}: ${res.text}`);
    }
    const body = await api().post('/users/', {
      name: 'Nul\u0000',
      email: 'nul@example.com',
      username: 'nul',
      plan_id: 1,
      group_id: 1,
    });
    assertBadFields(body, ['name']);
    const group = await api().post('/groups/', { name: 'a\u0000b' });
    assertBadFields(group, ['name']);
    const auth =
      'Basic ' + Buffer.from(`${target().partner.username}\u0000:${target().partner.password}`).toString('base64');
    assertError(await api().raw.get('/ping').set('authorization', auth), 401);
    // and everything still answers
    await api().get('/users/?limit=1').expect(200);
  });
}
