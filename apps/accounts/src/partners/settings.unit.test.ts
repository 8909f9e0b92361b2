import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCidr, validateSettings } from './settings.js';

const fieldsOf = (body: unknown) => {
  try {
    validateSettings(body);
    return [];
  } catch (e) {
    return (e as { body: { fields: string[] } }).body.fields;
  }
};

describe('enterprise settings validation', () => {
  it('accepts every valid field, coercing numeric strings', () => {
    const out = validateSettings({
      omva_url: 'https://omva.example.com/', support_email: 'help@example.com', share_link_ttl: '60', autopurge_interval: null,
      purgehold_duration: 0, ad_domain: 'Corp.Example.com', signup_network_restriction: ['10.0.0.0/8', '2001:db8::/32'],
    });
    assert.equal(out.share_link_ttl, 60);
    assert.equal(out.ad_domain, 'corp.example.com');
    assert.equal(out.autopurge_interval, null);
  });

  it('names every invalid field at once, and unknown keys', () => {
    const fields = fieldsOf({
      omva_url: 'ftp://x', support_email: 'nope', share_link_ttl: -1, autopurge_interval: 'soon', purgehold_duration: 1.5,
      ad_domain: 'bad domain', signup_network_restriction: ['10.0.0.0/33'], colour: 'red',
    });
    assert.deepEqual(fields.sort(), ['ad_domain', 'autopurge_interval', 'colour', 'omva_url', 'purgehold_duration', 'share_link_ttl', 'signup_network_restriction', 'support_email'].sort());
  });

  it('CIDR: checks address family and prefix length', () => {
    assert.ok(isCidr('192.168.0.0/16'));
    assert.ok(isCidr('::1/128'));
    assert.ok(!isCidr('192.168.0.0'));
    assert.ok(!isCidr('300.1.1.1/8'));
    assert.ok(!isCidr('::1/129'));
  });
});
