/**
 * What the operator asks the accounts service through the admin CLI: partners and their limits,
 * plans, name reservations and unfinished multi-step writes (the request schemas; the partners'
 * own requests are in requests.ts).
 */
import { z } from 'zod';
import { Password } from './requests.js';
import { formBool, formInt, text } from '../validation.js';
import {
  NAME_MAX_LENGTH,
  OPERATOR_PAGE_MAX,
  PARTNER_FEATURES,
  PARTNER_USERNAME_PATTERN,
  UNLIMITED_BYTES,
} from './limits.js';
import type { PartnerFeatures } from './records.js';
import { RESERVATION_KINDS } from './streams.js';

// ---- operator (admin CLI) ---------------------------------------------------------------------

const bytesAvailable = z.union([z.null(), formInt({ min: 0 })]).describe('null: unlimited');
const features = z
  .strictObject(
    Object.fromEntries(PARTNER_FEATURES.map((f) => [f, z.boolean()])) as Record<keyof PartnerFeatures, z.ZodBoolean>,
  )
  .partial();

export const CreatePartnerRequest = z.object({
  username: z.string().regex(PARTNER_USERNAME_PATTERN),
  password: Password,
  company_name: text(NAME_MAX_LENGTH),
  brand_identifier: text(NAME_MAX_LENGTH).optional(),
  bytes_available: bytesAvailable.default(null),
  features: features.optional(),
});
export type CreatePartnerRequest = z.input<typeof CreatePartnerRequest>;

export const SetPartnerLimitsRequest = z.object({
  username: z.string(),
  bytes_available: bytesAvailable.optional(),
  features: features.optional(),
});
export type SetPartnerLimitsRequest = z.input<typeof SetPartnerLimitsRequest>;

export const AddPlanRequest = z.object({
  name: text(NAME_MAX_LENGTH),
  storage_bytes: z.union([z.literal(UNLIMITED_BYTES), formInt({ min: 0 })]),
  promo: formBool().default(false),
});
export type AddPlanRequest = z.input<typeof AddPlanRequest>;

// ---- operator: reservations and unfinished multi-step writes (admin CLI) ----------------------

const ReservationKindParam = z.enum(RESERVATION_KINDS);

export const ListReservationsRequest = z.strictObject({
  kind: ReservationKindParam.optional(),
  /** only the stuck ones (neither live nor in flight) */
  stuck: formBool().default(false),
  limit: formInt({ min: 1, max: OPERATOR_PAGE_MAX }).default(100),
  /** the `next` of the previous page */
  after: z.string().min(1).optional(),
});
export type ListReservationsRequest = z.input<typeof ListReservationsRequest>;

export const ReleaseReservationRequest = z
  .strictObject({
    kind: ReservationKindParam,
    name: z.string().trim().min(1),
    /** groupname only: group names are unique per partner (the partner's username) */
    partner: z.string().trim().min(1).optional(),
    /** release even a live or in-flight reservation */
    force: formBool().default(false),
  })
  .superRefine((request, ctx) => {
    if ((request.kind === 'groupname') !== (request.partner !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['partner'],
        message: 'partner is required for a groupname, and only for one',
      });
    }
  });
export type ReleaseReservationRequest = z.input<typeof ReleaseReservationRequest>;

export const ListPendingWritesRequest = z.strictObject({
  limit: formInt({ min: 1, max: OPERATOR_PAGE_MAX }).default(100),
});
export type ListPendingWritesRequest = z.input<typeof ListPendingWritesRequest>;

export const RecoverWritesRequest = z.strictObject({
  /** settle writes unfinished for at least this long (default: BURROW_RECOVERY_GRACE_SECONDS) */
  grace_seconds: formInt({ min: 0, max: 86_400 }).optional(),
});
export type RecoverWritesRequest = z.input<typeof RecoverWritesRequest>;
