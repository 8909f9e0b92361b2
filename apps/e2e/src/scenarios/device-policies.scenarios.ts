/**
 * Device policies and the preference catalogue (CLIENT-FACTS "What the management appliance also
 * calls"): create with 201 + Location on both mounts, read-your-writes, inheritance and effective
 * values, cycles refused, deletes refused while a group uses a policy or another inherits from it,
 * values validated against the catalogue, groups' device_policy, and tenant isolation.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, partnerApi, type PartnerApi } from '../harness/client.js';
import { assertBadFields, assertConflict, assertError, createGroup, knownPlans, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

interface Policy {
  id: number;
  name: string;
  inherits_from: number | null;
  policy: Record<string, unknown>;
  effective_policy: Record<string, unknown>;
}

async function createPolicy(api: PartnerApi, body: Record<string, unknown>): Promise<Policy> {
  const res = await api.post('/devicepolicies/', { name: unique('pol'), ...body });
  assert.equal(res.status, 201, `create policy: ${res.status} ${res.text}`);
  return res.body as Policy;
}

/** An entry of GET /devicepreferences as the console reads it: a category or a preference. */
interface ConsoleEntry {
  name?: string;
  category?: string;
  description?: string;
  type?: string;
  choices?: string[] | null;
  conditional_parent_value?: unknown;
  fields: ConsoleEntry[];
}

/** The console's Preference namedtuple. */
interface ConsolePreference {
  name: string;
  description: string;
  field_type: string;
  choices: string[] | null;
  parent: string | null;
  conditional_parent_value: unknown;
}

const CONSOLE_FIELD_TYPES = ['string[]', 'string', 'integer', 'boolean'];

/** A KeyError in Python: the key must be there (null is a value). */
function key<T>(entry: ConsoleEntry, name: keyof ConsoleEntry): T {
  assert.ok(name in entry, `KeyError: '${name}' in ${JSON.stringify(entry).slice(0, 120)}`);
  return entry[name] as T;
}

/** netkes views/policies.py `_parse_preferences` + `_build_preference`, key for key. */
function consoleParse(entries: ConsoleEntry[], parent: string | null = null): ConsolePreference[] {
  const out: ConsolePreference[] = [];
  for (const pref of entries) {
    if (pref.name) {
      out.push({
        name: key(pref, 'name'),
        description: key(pref, 'description'),
        field_type: key(pref, 'type'),
        choices: key(pref, 'choices'),
        parent,
        conditional_parent_value: key(pref, 'conditional_parent_value'),
      });
    }
    for (const f of key<ConsoleEntry[]>(pref, 'fields')) out.push(...consoleParse([f], pref.name ?? null));
  }
  return out;
}

export function devicePoliciesScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  for (const base of ['', '/apis/accounts/v1']) {
    it(`POST ${base}/devicepolicies/ answers 201 with Location ending in /<id>; the policy reads back at once`, async () => {
      const name = unique('Laptops');
      const res = await api().post(`${base}/devicepolicies/`, {
        name,
        policy: { lan_sync: 'false', upload_limit_kbps: '512' },
      });
      assert.equal(res.status, 201, res.text);
      const location = res.headers.location;
      assert.match(location, new RegExp(`^(https?://[^/]+)?${base}/devicepolicies/\\d+$`));
      const id = Number(location.split('/').pop());
      assert.equal(res.body.id, id);
      assert.equal(res.body.name, name);
      assert.equal(res.body.inherits_from, null);
      assert.deepEqual(
        res.body.policy,
        { lan_sync: false, upload_limit_kbps: 512 },
        'values stored in their canonical types',
      );
      assert.equal(res.body.effective_policy.lan_sync, false);
      assert.equal(
        res.body.effective_policy.backup_schedule,
        'automatic',
        'unset preferences take the catalogue default',
      );
      assert.deepEqual(
        (
          await api()
            .get(location.replace(/^https?:\/\/[^/]+/, ''))
            .expect(200)
        ).body,
        res.body,
      );
      const list = (await api().get(`${base}/devicepolicies/`).expect(200)).body as Policy[];
      assert.deepEqual(
        list.find((p) => p.id === id),
        res.body,
      );
    });
  }

  it("GET /devicepreferences has the shape the management console's policy page parses (netkes _parse_preferences, _field_type)", async () => {
    for (const path of ['/devicepreferences', '/apis/accounts/v1/devicepreferences']) {
      const categories = (await api().get(path).expect(200)).body as ConsoleEntry[];
      const prefs = consoleParse(categories);
      const byName = new Map(prefs.map((p) => [p.name, p]));
      for (const name of [
        'backup_schedule',
        'upload_limit_enabled',
        'download_limit_enabled',
        'lan_sync',
        'excluded_file_types',
        'version_retention_days',
      ]) {
        assert.ok(byName.has(name), `catalogue lacks ${name}`);
      }
      for (const p of prefs) {
        assert.ok(CONSOLE_FIELD_TYPES.includes(p.field_type), `${p.name}: the console drops type ${p.field_type}`);
        assert.equal(
          p.parent === null,
          p.conditional_parent_value === null,
          `${p.name}: a child names the parent value it applies under; a top-level preference none`,
        );
        if (p.field_type !== 'string' && p.choices !== null) assert.fail(`${p.name}: choices only on a string`);
      }
      // every category is a nameless entry holding fields (the console's template walks category.fields)
      for (const c of categories)
        assert.ok(typeof c.category === 'string' && !('name' in c) && Array.isArray(c.fields), JSON.stringify(c));
      assert.ok(byName.get('backup_schedule')!.choices!.includes('daily'));
      assert.equal(byName.get('excluded_file_types')!.field_type, 'string[]');
      assert.deepEqual(
        [byName.get('upload_limit_kbps')!.parent, byName.get('upload_limit_kbps')!.conditional_parent_value],
        ['upload_limit_enabled', true],
      );
      assert.deepEqual(
        [byName.get('backup_time')!.parent, byName.get('backup_time')!.conditional_parent_value],
        ['backup_schedule', ['daily', 'weekly']],
      );
      // a policy made of what the console's form posts: typed values, "--unset--"/"--inherit--", empty fields
      const res = await api().post('/devicepolicies/', {
        name: unique('console'),
        inherits_from: null,
        policy: {
          lan_sync: false,
          upload_limit_enabled: true,
          upload_limit_kbps: 512,
          backup_schedule: '--unset--',
          backup_time: '',
          backup_weekday: '--inherit--',
          max_file_size_mb: null,
          excluded_file_types: ['iso'],
        },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.policy, {
        lan_sync: false,
        upload_limit_enabled: true,
        upload_limit_kbps: 512,
        excluded_file_types: ['iso'],
      });
    }
  });

  it("a policy inherits its parent's values (effective_policy), follows the parent's changes, and overrides them", async () => {
    const parent = await createPolicy(api(), {
      policy: { backup_schedule: 'daily', backup_time: '01:30', lan_sync: false },
    });
    const child = await createPolicy(api(), { inherits_from: parent.id, policy: { backup_time: '22:00' } });
    assert.equal(child.inherits_from, parent.id);
    assert.deepEqual(child.policy, { backup_time: '22:00' });
    assert.equal(child.effective_policy.backup_schedule, 'daily');
    assert.equal(child.effective_policy.backup_time, '22:00');
    assert.equal(child.effective_policy.lan_sync, false);
    const grandchild = await createPolicy(api(), { inherits_from: child.id, policy: {} });

    const changed = await api().post(`/devicepolicies/${parent.id}`, {
      policy: { backup_schedule: 'weekly', backup_weekday: 'friday' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      changed.body.policy,
      { backup_schedule: 'weekly', backup_weekday: 'friday' },
      'policy replaces the own values whole',
    );
    const after = (await api().get(`/devicepolicies/${grandchild.id}`).expect(200)).body as Policy;
    assert.equal(after.effective_policy.backup_schedule, 'weekly');
    assert.equal(after.effective_policy.backup_weekday, 'friday');
    assert.equal(after.effective_policy.backup_time, '22:00');
    assert.equal(after.effective_policy.lan_sync, true, 'the parent no longer sets lan_sync: the default again');

    // cycles are refused: the policy itself, its child, its grandchild
    assertConflict(await api().post(`/devicepolicies/${parent.id}`, { inherits_from: parent.id }), 'inherits_from');
    assertConflict(await api().post(`/devicepolicies/${parent.id}`, { inherits_from: child.id }), 'inherits_from');
    assertConflict(await api().post(`/devicepolicies/${parent.id}`, { inherits_from: grandchild.id }), 'inherits_from');
    assertConflict(
      await api().post('/devicepolicies/', { name: unique('pol'), inherits_from: 999_999 }),
      'inherits_from',
    );
    // re-parenting elsewhere is fine, and detaching
    const detached = await api().post(`/devicepolicies/${grandchild.id}`, { inherits_from: parent.id, name: 'Moved' });
    assert.equal(detached.status, 200, detached.text);
    assert.deepEqual([detached.body.inherits_from, detached.body.name], [parent.id, 'Moved']);
    assert.equal(
      (await api().post(`/devicepolicies/${grandchild.id}`, { inherits_from: null }).expect(200)).body.inherits_from,
      null,
    );
  });

  it('a policy another inherits from, or a group uses, cannot be deleted (409); once free, DELETE and ?action=delete remove it', async () => {
    const plans = await knownPlans(api());
    const parent = await createPolicy(api(), {});
    const child = await createPolicy(api(), { inherits_from: parent.id });
    assertConflict(await api().delete(`/devicepolicies/${parent.id}`), 'inherits_from');
    assertConflict(await api().post(`/devicepolicies/${parent.id}?action=delete`), 'inherits_from');
    // the appliance knows a policy in use only by 'policy_id' in conflicts (its PolicyInUse)
    assertConflict(await api().delete(`/devicepolicies/${parent.id}`), 'policy_id');

    const group = await createGroup(api(), {
      name: unique('grp'),
      plan_id: plans.small.plan_id,
      device_policy: child.id,
    });
    assert.equal(group.device_policy, child.id);
    assertConflict(await api().delete(`/devicepolicies/${child.id}`), 'device_policy');
    assertConflict(await api().delete(`/devicepolicies/${child.id}`), 'policy_id');
    assert.equal(
      (await api().get(`/devicepolicies/${child.id}`).expect(200)).body.id,
      child.id,
      'the refused delete changed nothing',
    );

    const cleared = await api().post(`/groups/${group.group_id}`, { device_policy: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.device_policy, null);
    assert.equal((await api().delete(`/devicepolicies/${child.id}`)).status, 200);
    await api().get(`/devicepolicies/${child.id}`).expect(404);
    assert.equal((await api().post(`/devicepolicies/${parent.id}?action=delete`, { ignored: true })).status, 200);
    assertError(await api().get(`/devicepolicies/${parent.id}`), 404);
    assertError(await api().delete(`/devicepolicies/${parent.id}`), 404);
  });

  it('groups accept and return device_policy; an unknown policy id is 409 device_policy, a malformed one 400', async () => {
    const plans = await knownPlans(api());
    const policy = await createPolicy(api(), {});
    const group = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
    assert.equal(group.device_policy, null);
    const set = await api().post(`/groups/${group.group_id}`, { device_policy: String(policy.id) });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.device_policy, policy.id);
    assert.equal(
      ((await api().get('/groups/').expect(200)).body as { group_id: number; device_policy: number | null }[]).find(
        (g) => g.group_id === group.group_id,
      )!.device_policy,
      policy.id,
    );
    assertConflict(await api().post(`/groups/${group.group_id}`, { device_policy: 999_999 }), 'device_policy');
    assertConflict(
      await api().post('/groups/', { name: unique('grp'), plan_id: plans.small.plan_id, device_policy: 999_999 }),
      'device_policy',
    );
    assertBadFields(await api().post(`/groups/${group.group_id}`, { device_policy: 'first' }), ['device_policy']);
    assert.equal(
      (await api().get(`/groups/${group.group_id}`).expect(200)).body.device_policy,
      policy.id,
      'refused changes changed nothing',
    );
  });

  it('the management console\'s group form posts "no policy" as "" (none chosen) or "None" (as it renders null): both mean null', async () => {
    const plans = await knownPlans(api());
    const policy = await createPolicy(api(), {});
    // the formset posts its values unconverted: plan_id as a string, booleans as booleans
    const created = await api().post('/groups/', {
      name: unique('grp'),
      plan_id: String(plans.small.plan_id),
      webapi_enable: true,
      check_domain: false,
      device_policy: '',
    });
    assert.equal(created.status, 201, created.text);
    const groupId = Number(String(created.headers.location).split('/').pop());
    assert.equal((await api().get(`/groups/${groupId}`).expect(200)).body.device_policy, null);
    for (const none of ['None', '']) {
      assert.equal(
        (await api().post(`/groups/${groupId}`, { device_policy: String(policy.id) })).body.device_policy,
        policy.id,
      );
      const cleared = await api().post(`/groups/${groupId}`, {
        name: unique('grp'),
        plan_id: String(plans.small.plan_id),
        webapi_enable: true,
        check_domain: false,
        device_policy: none,
      });
      assert.equal(cleared.status, 200, `${JSON.stringify(none)}: ${cleared.text}`);
      assert.equal((await api().get(`/groups/${groupId}`).expect(200)).body.device_policy, null, JSON.stringify(none));
    }
  });

  it('values are checked against the catalogue: 400 naming policy.<preference>; names are unique; bad ids are 404', async () => {
    assertBadFields(
      await api().post('/devicepolicies/', {
        name: unique('pol'),
        policy: { backup_schedule: 'sometimes', upload_limit_kbps: 1, colour: 'blue', lan_sync: 'perhaps' },
      }),
      ['policy.backup_schedule', 'policy.upload_limit_kbps', 'policy.colour', 'policy.lan_sync'],
    );
    assertBadFields(await api().post('/devicepolicies/', { policy: {} }), ['name']);
    assertBadFields(await api().post('/devicepolicies/', { name: unique('pol'), policy: 'everything' }), ['policy']);
    assertBadFields(await api().post('/devicepolicies/', { name: unique('pol'), inherits_from: 'root' }), [
      'inherits_from',
    ]);
    assertError(await api().post('/devicepolicies/', ['a']), 400);
    assertError(await api().post('/devicepolicies/'), 400);
    const policy = await createPolicy(api(), { policy: { excluded_file_types: ['.ISO', 'tmp'] } });
    assert.deepEqual(policy.policy.excluded_file_types, ['iso', 'tmp']);
    assertBadFields(await api().post(`/devicepolicies/${policy.id}`, { policy: { backup_time: '25:00' } }), [
      'policy.backup_time',
    ]);
    assertError(await api().post(`/devicepolicies/${policy.id}?action=remove`), 400);
    assertConflict(await api().post('/devicepolicies/', { name: policy.name.toUpperCase() }), 'name');
    for (const bad of ['abc', '0', '-1', '1.5']) assertError(await api().get(`/devicepolicies/${bad}`), 404);
    assertError(await api().get('/devicepolicies/999999'), 404);
  });

  it("another partner's policies are invisible: 404 on every operation, absent from its list, refused as parent or group policy", async () => {
    const plans = await knownPlans(api());
    const mine = await createPolicy(api(), { policy: { lan_sync: false } });
    const other = await createPartner(target());
    const theirs = other.api;
    assertError(await theirs.get(`/devicepolicies/${mine.id}`), 404);
    assertError(await theirs.get(`/apis/accounts/v1/devicepolicies/${mine.id}`), 404);
    assertError(await theirs.post(`/devicepolicies/${mine.id}`, { name: 'taken over' }), 404);
    assertError(await theirs.post(`/devicepolicies/${mine.id}?action=delete`), 404);
    assertError(await theirs.delete(`/devicepolicies/${mine.id}`), 404);
    assert.deepEqual((await theirs.get('/devicepolicies/').expect(200)).body, []);
    assertConflict(
      await theirs.post('/devicepolicies/', { name: unique('pol'), inherits_from: mine.id }),
      'inherits_from',
    );
    assertConflict(
      await theirs.post('/groups/', { name: unique('grp'), plan_id: plans.small.plan_id, device_policy: mine.id }),
      'device_policy',
    );
    // the same name is free for them, and their policy is invisible to us
    const same = await createPolicy(theirs, { name: mine.name });
    assertError(await api().get(`/devicepolicies/${same.id}`), 404);
    assert.deepEqual((await api().get(`/devicepolicies/${mine.id}`).expect(200)).body, mine, 'untouched');
  });

  it('device policy routes need partner credentials', async () => {
    const anonymous = partnerApi(target(), target().url, { username: unique('nobody'), password: 'wrong-password-1' });
    for (const path of ['/devicepolicies/', '/devicepreferences']) {
      const res = await anonymous.get(path);
      assert.equal(res.status, 401);
      assert.match(res.headers['www-authenticate'] ?? '', /^Basic/);
    }
  });
}
