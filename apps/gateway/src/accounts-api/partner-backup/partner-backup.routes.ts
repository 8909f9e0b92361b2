/** The routes of the management appliance's configuration backup: path, method, query schema, and their OpenAPI prose and examples. */
import {
  PARTNER_BACKUP_BODY_LIMIT,
  PARTNER_BACKUPS_KEPT,
  PartnerBackupBody,
  PartnerBackupQuery,
  PartnerBackupVersion,
} from '@burrow/contracts';
import { route } from '../../http/route.js';
import { content, err, error, ex, JSON_TYPE, listOf, reply, SPEC_BODY_TYPE } from '../../openapi/builders.js';
import { AUTHENTICATED } from '../../openapi/common.js';
import { createHash } from 'node:crypto';

const data = 'U2FsdGVkX1+vupppZksvRf5pq5g5XjFRIipRkwB0K1Y=';
/** the example's true hash, so a reader can check what is hashed */
const sha256 = createHash('sha256').update(data).digest('hex');
const version = { sha256, size: data.length, stored_at: 1763740000 };

export const PARTNER_BACKUP_ROUTES = {
  latest: route({
    method: 'get',
    path: 'partner/backup',
    query: PartnerBackupQuery,
    operation: {
      operationId: 'getPartnerBackup',
      tags: ['partner'],
      summary: 'The latest stored appliance backup',
      description: `The latest backup, with its data exactly as it was sent; \`null\` (status 200) when none is stored. With \`sha256\`, one of the ${PARTNER_BACKUPS_KEPT} kept versions instead (404 if it is not kept).`,
      queryNotes: {
        sha256: {
          description: `the hash of one of the ${PARTNER_BACKUPS_KEPT} kept versions (any case)`,
          example: sha256,
        },
      },
      responses: {
        '200': {
          description: 'The backup, or `null` when none is stored.',
          content: content(
            { anyOf: [{ $ref: '#/components/schemas/PartnerBackup' }, { type: 'null' }] },
            {
              stored: ex('a stored backup', { ...version, data }),
              none: ex('nothing stored yet', null),
            },
          ),
        },
        '400': error('`sha256` is not 64 hexadecimal digits.', {
          bad: ex('bad hash', err('invalid query parameters: sha256', { fields: ['sha256'] })),
        }),
        '404': error('With `sha256`: no kept version has that hash.', {
          notKept: ex('not kept', err('no kept backup with that sha256')),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  versions: route({
    method: 'get',
    path: 'partner/backup/versions',
    operation: {
      operationId: 'listPartnerBackups',
      tags: ['partner'],
      summary: 'The kept appliance backups',
      description: `The ${PARTNER_BACKUPS_KEPT} most recent versions (fewer if fewer were stored), newest first, without their data.`,
      responses: {
        '200': reply('The versions.', listOf(PartnerBackupVersion, 'versions'), {
          versions: ex('one version', [version]),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  /** the body is read as a stream (backup-body.ts) with PartnerBackupBody's rules, so its request body is written out whole */
  store: route({
    method: 'post',
    path: 'partner/backup',
    operation: {
      operationId: 'storePartnerBackup',
      tags: ['partner'],
      summary: 'Store an appliance backup',
      description: `Stores a new version and answers with it (without the data). \`sha256\` is the hex SHA-256 of the \`data\` string exactly as sent: the base64 text, not the bytes it decodes to. The body is read as a stream, field by field, and holds exactly these two fields. Storing the data of the latest version again adds no version. The ${PARTNER_BACKUPS_KEPT} most recent versions are kept.`,
      requestBody: {
        description: `JSON whatever the content type; at most ${PARTNER_BACKUP_BODY_LIMIT} bytes (this route's own limit).`,
        required: true,
        content: Object.fromEntries(
          [JSON_TYPE, SPEC_BODY_TYPE].map((type) => [
            type,
            { ...content(PartnerBackupBody, { backup: ex('a backup', { sha256, data }) })[JSON_TYPE] },
          ]),
        ),
      },
      responses: {
        '200': reply('Stored.', PartnerBackupVersion, { stored: ex('the stored version', version) }),
        '400': error(
          'A field missing, malformed or unknown, data that is not base64, or a sha256 that does not match the data.',
          {
            mismatch: ex(
              'wrong hash',
              err(
                'sha256 does not match the data (expected: the hex SHA-256 of the data string exactly as sent, i.e. of the base64 text)',
                { fields: ['sha256'] },
              ),
            ),
            missing: ex('no data', err('invalid or missing parameters: data', { fields: ['data'] })),
          },
        ),
        '413': error(`The body is over ${PARTNER_BACKUP_BODY_LIMIT} bytes.`, {
          tooLarge: ex('too large', err(`request body over ${PARTNER_BACKUP_BODY_LIMIT} bytes`)),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
};
