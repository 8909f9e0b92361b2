/** Responses every interface shares (authentication, throttling, availability, body size). */
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { content, ERROR_SCHEMA, err, error, ex, responseRef } from './builders.js';
import type { Response } from './types.js';

export const commonResponses: Record<string, Response> = {
  Unauthorized: {
    description: 'Missing or invalid partner credentials.',
    headers: {
      'WWW-Authenticate': { description: 'Basic challenge', schema: { type: 'string' }, example: 'Basic realm="burrow"' },
    },
    content: content(ERROR_SCHEMA, {
      invalid: ex('wrong username or password', err('invalid partner credentials')),
      missing: ex('no Authorization header', err('partner credentials required (HTTP Basic)')),
    }),
  },
  TooManyRequests: {
    description:
      'Too many failed logins: 20 per partner username in 5 minutes, or 100 per client address in a minute on one gateway. Further requests are refused until the window has passed, even with the right password (unless those exact credentials were verified moments before).',
    headers: {
      'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 1 }, example: '240' },
    },
    content: content(ERROR_SCHEMA, {
      account: ex('this username failed too often', err('too many failed logins for this account; retry later', { retry_after: 240 })),
      address: ex('this client address failed too often', err('too many failed logins from this address; retry later', { retry_after: 35 })),
    }),
  },
  ServiceUnavailable: error('A service behind the gateway did not answer in time, or was too contended. After a timeout a write may still have been applied: read back before retrying.', {
    timeout: ex('service timed out', err('accounts service did not answer in time')),
  }),
  PayloadTooLarge: error(`The request body is over ${JSON_BODY_LIMIT} bytes.`, {
    tooLarge: ex('body too large', err(`request body over ${JSON_BODY_LIMIT} bytes`)),
  }),
};

/** Responses every partner-authenticated operation can give. */
export const AUTHENTICATED = { '401': responseRef('Unauthorized'), '429': responseRef('TooManyRequests'), '503': responseRef('ServiceUnavailable') };
/** ... and those reading a JSON body. */
export const WITH_BODY = { ...AUTHENTICATED, '413': responseRef('PayloadTooLarge') };

export const notValidJson = ex('body is not JSON', err('request body is not valid JSON'));
export const notAnObject = ex('body is not a JSON object', err('request body must be a JSON object'));
