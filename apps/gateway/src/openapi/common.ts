/** Responses every interface shares (authentication, throttling, availability, body size). */
import { LOGIN_POLICY } from '@burrow/contracts';
import { crossSiteRefusal } from '../http/cross-site.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { content, ERROR_SCHEMA, err, error, ex, responseRef } from './builders.js';
import type { Response } from '../http/openapi-types.js';

const MINUTE = 60_000;
const duration = (ms: number) => {
  const [n, unit] =
    ms % (24 * 60 * MINUTE) === 0
      ? [ms / (24 * 60 * MINUTE), 'day']
      : ms % (60 * MINUTE) === 0
        ? [ms / (60 * MINUTE), 'hour']
        : [ms / MINUTE, 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
};
const { account, address, knownAddress } = LOGIN_POLICY;

/** The failed-login limits in a sentence or two, from the very numbers the throttle applies. */
export const LOGIN_LIMITS_PROSE =
  `A username locks after ${account.threshold} failures within ${duration(account.windowMs)} from addresses it has not logged in from, ` +
  `for ${duration(account.firstLockMs)}; after each lock one more failure locks it again for twice as long, up to ${duration(account.maxLockMs)}; ` +
  `a successful login from such an address resets this. An address the account logged in from within the last ${duration(knownAddress.rememberMs)} is not held by that lock: ` +
  `it has its own budget of ${knownAddress.threshold} failures per ${duration(knownAddress.windowMs)}. ` +
  `A client address is refused after ${address.threshold} failures within ${duration(address.windowMs)}, over all usernames. ` +
  'Every gateway and service replica counts alike.';

/** The cross-site rule (http/cross-site.ts) in a sentence. */
export const CROSS_SITE_PROSE =
  'A change (any method but GET, HEAD, OPTIONS and PROPFIND) sent by a page of another site is refused with 403, whatever credentials the browser adds ' +
  "(the session cookie, cached Basic credentials, none): when `Sec-Fetch-Site` is `cross-site` or `same-site`, or `Origin` is neither the gateway's own origin nor BURROW_PUBLIC_URL's. " +
  'Clients that are not browsers send neither header and are not affected.';

/** The example of a cross-site refusal, as the gateway words it. */
export const crossSiteExample = ex(
  'a change sent by a page of another site',
  err(crossSiteRefusal('this request came from another origin (https://evil.example)')),
);

export const commonResponses: Record<string, Response> = {
  Unauthorized: {
    description: 'Missing or invalid partner credentials.',
    headers: {
      'WWW-Authenticate': {
        description: 'Basic challenge',
        schema: { type: 'string' },
        example: 'Basic realm="burrow"',
      },
    },
    content: content(ERROR_SCHEMA, {
      invalid: ex('wrong username or password', err('invalid partner credentials')),
      missing: ex('no Authorization header', err('partner credentials required (HTTP Basic)')),
    }),
  },
  TooManyRequests: {
    description: `Too many failed logins. ${LOGIN_LIMITS_PROSE} While refused, even the right password gets 429: wait \`Retry-After\` seconds.`,
    headers: {
      'Retry-After': {
        description: 'seconds to wait',
        schema: { type: 'integer', minimum: 1 },
        example: String(account.firstLockMs / 1000),
      },
    },
    content: content(ERROR_SCHEMA, {
      account: ex(
        'this username failed too often',
        err('too many failed logins for this account; retry later', { retry_after: account.firstLockMs / 1000 }),
      ),
      address: ex(
        'this client address failed too often',
        err('too many failed logins from this address; retry later', { retry_after: 35 }),
      ),
    }),
  },
  ServiceUnavailable: error(
    'A service behind the gateway did not answer in time, or was too contended. After a timeout a write may still have been applied: read back before retrying.',
    {
      timeout: ex('service timed out', err('accounts service did not answer in time')),
    },
  ),
  CrossSite: error(CROSS_SITE_PROSE, { crossSite: crossSiteExample }),
  PayloadTooLarge: error(`The request body is over ${JSON_BODY_LIMIT} bytes.`, {
    tooLarge: ex('body too large', err(`request body over ${JSON_BODY_LIMIT} bytes`)),
  }),
};

/** Responses every partner-authenticated operation can give. */
export const AUTHENTICATED = {
  '401': responseRef('Unauthorized'),
  '429': responseRef('TooManyRequests'),
  '503': responseRef('ServiceUnavailable'),
};
/** ... and those reading a JSON body. */
export const WITH_BODY = { ...AUTHENTICATED, '413': responseRef('PayloadTooLarge') };

export const notValidJson = ex('body is not JSON', err('request body is not valid JSON'));
export const notAnObject = ex('body is not a JSON object', err('request body must be a JSON object'));
