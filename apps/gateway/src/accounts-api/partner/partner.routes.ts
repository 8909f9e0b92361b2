/** The routes `/partner/...` (password, settings, features, quota, info): path, method, body schemas, and their OpenAPI prose and examples. */
import {
  ChangePasswordBody,
  PartnerFeatures,
  PartnerInfo,
  PartnerQuota,
  PartnerSettings,
  UpdateSettingsBody,
} from '@burrow/contracts';
import { route } from '../../http/route.js';
import { empty, err, error, ex, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../../openapi/common.js';
import { exampleFeatures, exampleInfo, exampleQuota, exampleSettings } from '../examples.js';

/** Paths relative to the partner mounts (`/partner/`, `/apis/accounts/v1/partner/`). */
export const PARTNER_ROUTES = {
  password: route({
    method: 'post',
    path: 'password',
    body: ChangePasswordBody,
    operation: {
      operationId: 'changePartnerPassword',
      tags: ['partner'],
      summary: 'Change the API / management console password',
      description: 'Takes effect at once on every gateway: the old password gets 401 from then on.',
      requestBody: {
        description: 'The new password.',
        examples: {
          bare: ex('a bare JSON string (the spec)', 'n3w-Secret-passphrase'),
          object: ex('an object', { password: 'n3w-Secret-passphrase' }),
        },
      },
      responses: {
        '200': empty('Changed.'),
        '400': error('Not a string of 8 to 1024 characters without NUL characters.', {
          notString: ex('not a string', err('invalid or missing parameters: password', { fields: ['password'] })),
        }),
        ...WITH_BODY,
      },
    },
  }),
  settings: route({
    method: 'get',
    path: 'settings',
    operation: {
      operationId: 'getPartnerSettings',
      tags: ['partner'],
      summary: 'Enterprise settings',
      responses: {
        '200': reply('The settings.', PartnerSettings, { settings: ex('settings', exampleSettings) }),
        ...AUTHENTICATED,
      },
    },
  }),
  updateSettings: route({
    method: 'post',
    path: 'settings',
    body: UpdateSettingsBody,
    operation: {
      operationId: 'updatePartnerSettings',
      tags: ['partner'],
      summary: 'Change enterprise settings',
      description: 'Changes only the settings named; returns all settings.',
      requestBody: {
        description: 'Any subset of the settings.',
        examples: {
          some: ex('partial update; null clears', {
            share_link_ttl: 120,
            autopurge_interval: null,
            ad_domain: 'corp.example.com',
          }),
        },
      },
      responses: {
        '200': reply('All settings after the change.', PartnerSettings, {
          settings: ex('after the change', { ...exampleSettings, share_link_ttl: 120, autopurge_interval: null }),
        }),
        '400': error('Invalid values or unknown keys (all named in `fields`).', {
          fields: ex(
            'bad CIDR and an unknown key',
            err('invalid or missing parameters: signup_network_restriction, colour', {
              fields: ['signup_network_restriction', 'colour'],
            }),
          ),
          notObject: notAnObject,
        }),
        ...WITH_BODY,
      },
    },
  }),
  features: route({
    method: 'get',
    path: 'features',
    operation: {
      operationId: 'getPartnerFeatures',
      tags: ['partner'],
      summary: 'Enterprise features',
      responses: {
        '200': reply('The features.', PartnerFeatures, { features: ex('features', exampleFeatures) }),
        ...AUTHENTICATED,
      },
    },
  }),
  quota: route({
    method: 'get',
    path: 'quota',
    operation: {
      operationId: 'getPartnerQuota',
      tags: ['partner'],
      summary: 'Enterprise quota',
      responses: {
        '200': reply('The quota.', PartnerQuota, {
          limited: ex('a limited enterprise', exampleQuota),
          unlimited: ex('no limit', { ...exampleQuota, bytes_available: null }),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  info: route({
    method: 'get',
    path: 'info',
    operation: {
      operationId: 'getPartnerInfo',
      tags: ['partner'],
      summary: 'Who am I (beyond the spec)',
      responses: { '200': reply('The partner.', PartnerInfo, { info: ex('info', exampleInfo) }), ...AUTHENTICATED },
    },
  }),
};
