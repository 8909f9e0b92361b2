/**
 * The one error shape of Burrow. Services throw DomainError; it crosses the bus as a plain
 * object (`toWire`) and the gateway turns it back into an HTTP status and JSON body.
 */
import { z } from 'zod';
export interface ErrorBody {
  reason: string;
  /** Only for 409: the fields in conflict (a list, always). */
  conflicts?: string[];
  /** 400: the invalid or missing fields. */
  fields?: string[];
  /** Card processor response code (billing 409). */
  code?: string;
  /** 429 and 503: seconds before a new attempt is considered (also the Retry-After header) */
  retry_after?: number;
  /** 401 of a share room: its password is needed */
  password_required?: boolean;
  /** 503: the server Burrow depends on that does not answer (`event store`, `blob store`, ...) */
  dependency?: string;
}

export interface WireError extends ErrorBody {
  burrowError: true;
  status: number;
}

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.reason);
    this.name = 'DomainError';
  }

  toWire(): WireError {
    return { burrowError: true, status: this.status, ...this.body };
  }

  static fromWire(value: unknown): DomainError | undefined {
    if (value && typeof value === 'object' && (value as WireError).burrowError === true) {
      const { burrowError: _b, status, ...body } = value as WireError;
      return new DomainError(status, body);
    }
    return undefined;
  }
}

export const badRequest = (reason: string, fields: string[] = []) =>
  new DomainError(400, fields.length ? { reason, fields } : { reason });
export const unauthorized = (reason = 'authentication required') => new DomainError(401, { reason });
export const paymentRequired = (reason: string) => new DomainError(402, { reason });
export const forbidden = (reason: string) => new DomainError(403, { reason });
export const notFound = (reason: string) => new DomainError(404, { reason });
export const conflict = (reason: string, conflicts: string[]) => new DomainError(409, { reason, conflicts });
/** The spec's card conflict body `{code, reason}`, with the empty `conflicts` list every 409 carries. */
export const cardDeclined = (code: string, reason: string) => new DomainError(409, { reason, code, conflicts: [] });
/** Something that existed and no longer does (a spent or expired link). */
export const gone = (reason: string) => new DomainError(410, { reason });
export const payloadTooLarge = (reason: string) => new DomainError(413, { reason });
export const serviceUnavailable = (reason: string) => new DomainError(503, { reason });
/** 507 Insufficient Storage: the user's quota, or the server's disk, cannot hold what is being written. */
export const insufficientStorage = (reason: string) => new DomainError(507, { reason });
/** The user's quota is full (documented in docs/api.md): refused before, while or after the bytes arrive. */
export const quotaExceeded = () =>
  insufficientStorage('storage quota exceeded: the upload would take the user past plan + bonus bytes');
export const tooManyRequests = (reason: string, retryAfterSeconds: number) =>
  new DomainError(429, { reason, retry_after: retryAfterSeconds });

/**
 * The 409 `conflicts` tokens clients test for (CLIENT-FACTS), `move_to` for group deletes,
 * `room_key` for share rooms, and `device_policy` / `inherits_from` for device policies (unknown,
 * in use, or a cycle), with `policy_id` beside them when a policy in use is not deleted (what the
 * management appliance tests for), `path` for WebDAV (no folder to hold it).
 */
export const CONFLICT_TOKENS = [
  'name',
  'plan_id',
  'group_id',
  'username',
  'email',
  'avatars_over_quota',
  'move_to',
  'room_key',
  'device_policy',
  'inherits_from',
  'policy_id',
  'path',
] as const;

/** The error body as a schema, for the OpenAPI document. */
export const ErrorResponse = z
  .object({
    reason: z.string().describe('human-readable reason'),
    conflicts: z
      .array(z.enum(CONFLICT_TOKENS))
      .optional()
      .describe('the conflicting fields, as tokens clients test for (409 only)'),
    fields: z.array(z.string()).optional().describe('the invalid or missing request fields or query parameters (400)'),
    code: z.string().optional().describe('the card processor response code (billing 409 only)'),
    retry_after: z
      .int()
      .min(1)
      .optional()
      .describe('seconds to wait before trying again (429 and 503; also the Retry-After header)'),
    password_required: z.literal(true).optional().describe("a share room's 401: the room needs its password"),
    dependency: z
      .string()
      .optional()
      .describe(
        '503 only: the server Burrow depends on that does not answer (`event store`, `read-model database`, `blob store`, `key-value store`)',
      ),
  })
  .meta({
    id: 'Error',
    description:
      'Every error body. `conflicts` only on 409 (a list, always); `fields` on 400 when specific fields are invalid or missing; `code` on the billing 409 (card refused).',
  });
