import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../errors.js';
import { parseRequest } from '../validation.js';
import {
  CreateDevicePolicyBody,
  DEVICE_PREFERENCES,
  PolicyValues,
  PREFERENCE_DEFAULTS,
  PREFERENCES_BY_NAME,
  UpdateDevicePolicyBody,
} from './device-policies.js';

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
    return [];
  } catch (e) {
    assert.ok(e instanceof DomainError && e.status === 400, String(e));
    return e.body.fields ?? [];
  }
};
const nested = ['policy'];

describe('device preference catalogue', () => {
  it('has unique names, and every default is a valid value of its own preference', () => {
    const names = [...PREFERENCES_BY_NAME.keys()];
    const all = DEVICE_PREFERENCES.flatMap(function flat(p): string[] {
      return [p.name, ...p.children.flatMap(flat)];
    });
    assert.equal(names.length, all.length, 'a preference name is used twice');
    assert.deepEqual(PolicyValues.parse(PREFERENCE_DEFAULTS), PREFERENCE_DEFAULTS);
    for (const p of PREFERENCES_BY_NAME.values()) {
      assert.equal(p.allowed_values === null, p.type !== 'choice', `${p.name}: allowed_values only for a choice`);
      if (p.type === 'choice') assert.ok(p.allowed_values!.includes(p.default as string), p.name);
    }
  });

  it('drops what the management console posts for a preference its policy does not set (null, "", --inherit--, --unset--)', () => {
    const posted = {
      lan_sync: '--unset--',
      backup_time: '',
      upload_limit_kbps: null,
      backup_weekday: '--inherit--',
      backup_on_battery: false,
    };
    assert.deepEqual(PolicyValues.parse(posted), { backup_on_battery: false });
    assert.deepEqual(
      fieldsOf(() => parseRequest(PolicyValues, { lan_sync: '--set--' })),
      ['lan_sync'],
    );
  });

  it('accepts values in the lenient forms of interface A and outputs canonical ones', () => {
    const out = PolicyValues.parse({
      lan_sync: 'False',
      upload_limit_kbps: '2048',
      excluded_file_types: ['.MP4', 'iso', 'mp4'],
      backup_time: ' 23:59 ',
    });
    assert.deepEqual(out, {
      lan_sync: false,
      upload_limit_kbps: 2048,
      excluded_file_types: ['mp4', 'iso'],
      backup_time: '23:59',
    });
  });

  it('refuses a bad value or an unknown preference with a 400 naming policy.<preference>', () => {
    const body = {
      name: 'Laptops',
      policy: {
        backup_schedule: 'sometimes',
        upload_limit_kbps: 1,
        backup_time: '24:00',
        excluded_file_types: ['a b'],
        lan_sync: 'maybe',
        colour: 'blue',
      },
    };
    assert.deepEqual(fieldsOf(() => parseRequest(CreateDevicePolicyBody, body, { nested })).sort(), [
      'policy.backup_schedule',
      'policy.backup_time',
      'policy.colour',
      'policy.excluded_file_types',
      'policy.lan_sync',
      'policy.upload_limit_kbps',
    ]);
    assert.deepEqual(
      fieldsOf(() => parseRequest(CreateDevicePolicyBody, { name: 'x', policy: [] }, { nested })),
      ['policy'],
    );
    assert.deepEqual(
      fieldsOf(() => parseRequest(UpdateDevicePolicyBody, { inherits_from: 0 }, { nested })),
      ['inherits_from'],
    );
    assert.deepEqual(
      fieldsOf(() => parseRequest(CreateDevicePolicyBody, { policy: {} }, { nested })),
      ['name'],
    );
    assert.deepEqual(
      fieldsOf(() =>
        parseRequest(PolicyValues, { excluded_file_types: Array.from({ length: 201 }, (_, i) => `t${i}`) }),
      ),
      ['excluded_file_types'],
    );
  });

  it('a create defaults to no parent and no own values; inherits_from takes null or an id', () => {
    assert.deepEqual(parseRequest(CreateDevicePolicyBody, { name: ' Laptops ' }), { name: 'Laptops' });
    assert.deepEqual(parseRequest(UpdateDevicePolicyBody, { inherits_from: null }), { inherits_from: null });
    assert.deepEqual(parseRequest(UpdateDevicePolicyBody, { inherits_from: '4' }), { inherits_from: 4 });
  });
});
