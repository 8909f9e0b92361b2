/**
 * When a share room or a single-file link stops working, as its owner gives it: unix seconds, an
 * ISO 8601 date (`2026-12-31`: through the end of that day, UTC) or date and time, or "never"
 * (also null and ""). Whether the moment is still to come is checked where the clock is.
 */
import { z } from 'zod';

const DAY = 24 * 60 * 60;
/** The latest expiry accepted (year 9999): far beyond any need, and exact as a JSON number. */
export const EXPIRY_MAX = 253_402_300_799;

const never = z.union([z.null(), z.enum(['', 'never']).transform(() => null)]);
const unixSeconds = z
  .union([
    z.int(),
    z
      .string()
      .regex(/^\s*\d{1,12}\s*$/)
      .transform(Number),
  ])
  .pipe(z.int().min(1).max(EXPIRY_MAX));
const isoDate = z.iso.date().transform((d) => Date.parse(`${d}T00:00:00Z`) / 1000 + DAY);
const isoDateTime = z.iso.datetime({ offset: true }).transform((d) => Math.floor(Date.parse(d) / 1000));

export const Expiry = z
  .union([never, unixSeconds, isoDate, isoDateTime])
  .describe(
    'unix seconds, an ISO 8601 date (through the end of that day, UTC) or date-time, or null / "never": no expiry',
  );
export type Expiry = z.output<typeof Expiry>;
