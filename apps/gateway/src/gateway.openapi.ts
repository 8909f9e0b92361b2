/**
 * The OpenAPI 3.1 document served at `GET /openapi.json`: its paths built from the route
 * declarations (`openapi/paths.ts`; the gateway's sources are listed in gateway.routes.ts), its component
 * schemas generated from the contracts' zod schemas (the ones the parsers use). The human guide is
 * docs/api.md; `openapi/openapi.unit.test.ts` keeps the document equal to the routes and the parsers.
 */
import { CONFLICT_TOKENS, MAX_PAGE } from '@burrow/contracts';
import { deliveryWebhooks } from './events/delivery.openapi.js';
import { JSON_BODY_LIMIT } from './http/json-body.js';
import { commonResponses, CROSS_SITE_PROSE, LOGIN_LIMITS_PROSE } from './openapi/common.js';
import { componentSchemas } from './openapi/schemas.js';
import { type RouteSource, routePaths } from './openapi/paths.js';
import type { OpenApiDocument } from './http/openapi-types.js';

const DESCRIPTION = `
The partner accounts interface (interface A) of Burrow: plans, users, groups, partner password,
settings, features, quota, billing, the brand-wide share list and client revisions; the storage and
share interface (interface B, under /storage/, /share/, /link/ and /browse/login); and the operator
endpoints (/healthz, /readyz, /metrics, /openapi.json). The human guide is docs/api.md.

**Interface B** authenticates users by HTTP Basic (username or email), by the session cookie of the
login flow, or (one resource, one address) by a session extension; share rooms and single-file links
need no login. Its query parameters are parsed leniently, as real clients send them: unknown ones are
ignored, a bare \`?preview_48\` key is a preview, a \`version\` uses its integer prefix.
Every schema here is generated from the declarations the server validates requests with.

**Mounts.** Every interface-A path is also served under \`/apis/accounts/v1/\` (where existing
clients point), e.g. \`/apis/accounts/v1/users/\`; the two \`servers\` below are the two mounts. The
operator endpoints are at the root only. Trailing slashes are optional: \`/users/\` and \`/users\`
are the same resource.

**Authentication.** HTTP Basic with the partner's username and API password on every interface-A
request (send it pre-emptively). Missing or bad credentials get 401 with
\`WWW-Authenticate: Basic realm="burrow"\`. \`GET /ping\` is the credential check. After too many
failed logins requests are refused with 429 and \`Retry-After\`. ${LOGIN_LIMITS_PROSE}

**Lenient input.** Request bodies are JSON whatever the content type: application/json,
text/javascript (the spec's), or a form content type holding JSON. Integer fields accept numeric
strings (\`"3"\`); boolean fields accept true/false, 1/0 and the strings "true"/"false", "1"/"0",
"yes"/"no", "on"/"off" in any case (so \`"True"\`). The schemas show the canonical types. Anything else
is 400 naming the field. Strings are trimmed. Unknown keys are ignored, except in partner settings,
where they are refused. Integer query parameters accept the same numeric strings; unknown query
parameters are ignored, but a known one repeated (\`limit=1&limit=2\`) or bracketed (\`limit[]=1\`)
is 400 naming it.

**Errors.** Every error is JSON \`{"reason": "..."}\` (schema Error). 400 lists the invalid or missing
fields in \`fields\`; 409 always carries \`conflicts\`, a list of tokens (${CONFLICT_TOKENS.join(', ')}),
except the billing card refusal, which carries the processor's \`code\`. 402 is a storage quota
refusal, 404 an unknown resource or one of another partner, 429 too many failed logins, 413 a body over ${JSON_BODY_LIMIT} bytes, 503
a service that did not answer in time (a write may still have been applied: read back, then retry).

**Browsers.** ${CROSS_SITE_PROSE} Behind a proxy, the gateway's own origin is the one the proxy
forwards (\`X-Forwarded-Proto\`, \`X-Forwarded-Host\`) when BURROW_TRUST_PROXY trusts it.

**Connections.** One client address may hold a bounded number of connections and of requests in
progress (BURROW_MAX_CONNECTIONS_PER_ADDRESS); past it, a new connection is closed unanswered, and
behind a trusted proxy a new request is refused with 429 and \`Retry-After\`.

**Events.** \`GET /events/\` is the partner's feed of what happened in its brand (users, groups,
plans, quota thresholds, devices, hourly backup activity, share rooms, password changes), replayable
from position 0, also as Server-Sent Events; \`/webhooks/\` registers endpoints that receive the same
events by signed POSTs (the document's \`webhooks\` section describes a delivery).

**Pagination.** \`GET /users/\` and \`GET /shares/\` take \`limit\` (at most ${MAX_PAGE}, the default) and
\`offset\`.
`.trim();

/**
 * The document of the routes `sources` declare (the gateway's: gateway.routes.ts), in their order.
 * Pure; the caller keeps the result (the schemas do not change while the process runs).
 */
export function openApiDocument(sources: readonly RouteSource[]): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Burrow: accounts interface (A) and storage and share interface (B)',
      version: '1',
      summary:
        'Partner administration of plans, users, groups, billing and settings; users browsing, downloading and sharing their backups.',
      description: DESCRIPTION,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [
      { url: '/', description: 'interface A at the root' },
      { url: '/apis/accounts/v1', description: 'the same interface under the mount existing clients use' },
    ],
    security: [{ basicAuth: [] }],
    tags: [
      { name: 'partner', description: 'credential check, password, settings, features, quota, info' },
      { name: 'plans', description: 'the plan catalogue' },
      { name: 'users', description: 'users of the partner' },
      { name: 'groups', description: 'groups of users' },
      {
        name: 'device policies',
        description: 'backup client preferences assigned to groups, and the catalogue of preferences',
      },
      { name: 'shares', description: 'share rooms: per user and brand-wide' },
      { name: 'billing', description: 'partner billing information' },
      { name: 'events', description: "the partner's event feed (JSON and Server-Sent Events) and webhooks" },
      { name: 'reports', description: 'client revisions' },
      {
        name: 'storage',
        description:
          "the storage interface (B): a user's devices, folders, files, versions, downloads, zips and links, writing into them, and their share rooms",
      },
      {
        name: 'webdav',
        description:
          "a user's storage over WebDAV at /dav/<user>/ (rclone, restic, Finder, Explorer, GNOME Files): see the path's description for the WebDAV-only methods and mounting",
      },
      { name: 'storage login', description: 'the storage interface (B): cookie sessions' },
      {
        name: 'web pages',
        description:
          'HTML for browsers: share rooms, the login page, the storage browser (a request preferring text/html at a room, folder or login URL)',
      },
      { name: 'operations', description: 'health, metrics and this document (no authentication)' },
      {
        name: 'pages',
        description: 'HTML pages for people (no Basic authentication): the set-password page of activation emails',
      },
    ],
    paths: routePaths(sources),
    webhooks: deliveryWebhooks,
    components: {
      schemas: componentSchemas(),
      responses: commonResponses,
      parameters: {},
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: "The partner's username and API password (HTTP Basic, UTF-8).",
        },
        userBasic: {
          type: 'http',
          scheme: 'basic',
          description: "A user's username (or email) and password (HTTP Basic, UTF-8): the storage interface.",
        },
        userSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'burrow_session',
          description:
            'The session cookie of POST /storage/{user}/login (12 hours; ended by logout, a password change or disabling the user; a logout holds across restarts). A change sent with it (or with Basic credentials a browser cached) by a page of another site is refused with 403: see the description of the document, "Browsers".',
        },
      },
    },
  };
}
