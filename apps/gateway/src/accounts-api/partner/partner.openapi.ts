/** OpenAPI for `/partner/...`: password, settings, features, quota, info (schemas from the contracts). */
import { ChangePasswordBody, PartnerFeatures, PartnerInfo, PartnerQuota, PartnerSettings, UpdateSettingsBody } from '@burrow/contracts';
import { body, empty, err, error, ex, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../../openapi/common.js';
import type { PathsFragment } from '../../openapi/types.js';
import { exampleFeatures, exampleInfo, exampleQuota, exampleSettings } from '../examples.js';

export const partnerPaths: PathsFragment = {
  '/partner/password': {
    post: {
      operationId: 'changePartnerPassword',
      tags: ['partner'],
      summary: 'Change the API / management console password',
      description: 'Takes effect at once on every gateway: the old password gets 401 from then on.',
      requestBody: body('The new password.', ChangePasswordBody, {
        bare: ex('a bare JSON string (the spec)', 'n3w-Secret-passphrase'),
        object: ex('an object', { password: 'n3w-Secret-passphrase' }),
      }),
      responses: {
        '200': empty('Changed.'),
        '400': error('Not a string of 8 to 1024 characters without NUL characters.', {
          notString: ex('not a string', err('invalid or missing parameters: password', { fields: ['password'] })),
        }),
        ...WITH_BODY,
      },
    },
  },
  '/partner/settings': {
    get: {
      operationId: 'getPartnerSettings',
      tags: ['partner'],
      summary: 'Enterprise settings',
      responses: { '200': reply('The settings.', PartnerSettings, { settings: ex('settings', exampleSettings) }), ...AUTHENTICATED },
    },
    post: {
      operationId: 'updatePartnerSettings',
      tags: ['partner'],
      summary: 'Change enterprise settings',
      description: 'Changes only the settings named; returns all settings.',
      requestBody: body('Any subset of the settings.', UpdateSettingsBody, {
        some: ex('partial update; null clears', { share_link_ttl: 120, autopurge_interval: null, ad_domain: 'corp.example.com' }),
      }),
      responses: {
        '200': reply('All settings after the change.', PartnerSettings, { settings: ex('after the change', { ...exampleSettings, share_link_ttl: 120, autopurge_interval: null }) }),
        '400': error('Invalid values or unknown keys (all named in `fields`).', {
          fields: ex('bad CIDR and an unknown key', err('invalid or missing parameters: signup_network_restriction, colour', { fields: ['signup_network_restriction', 'colour'] })),
          notObject: notAnObject,
        }),
        ...WITH_BODY,
      },
    },
  },
  '/partner/features': {
    get: {
      operationId: 'getPartnerFeatures',
      tags: ['partner'],
      summary: 'Enterprise features',
      responses: { '200': reply('The features.', PartnerFeatures, { features: ex('features', exampleFeatures) }), ...AUTHENTICATED },
    },
  },
  '/partner/quota': {
    get: {
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
  },
  '/partner/info': {
    get: {
      operationId: 'getPartnerInfo',
      tags: ['partner'],
      summary: 'Who am I (beyond the spec)',
      responses: { '200': reply('The partner.', PartnerInfo, { info: ex('info', exampleInfo) }), ...AUTHENTICATED },
    },
  },
};
