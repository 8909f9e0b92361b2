/**
 * The management appliance's configuration backup (CLIENT-FACTS "What the management appliance
 * also calls"): the appliance stores `{"sha256": <hex>, "data": <base64 of an encrypted tarball>}`
 * with `POST /partner/backup` and reads the latest back with `GET /partner/backup`. The data
 * itself lives in the blob store (content-addressed: its key is the SHA-256 of the data text);
 * events carry only the key, hash, size and time.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import type { Event } from '../event.js';

/** The largest `POST /partner/backup` body: 64 MiB (the data is base64, so about 48 MiB of tarball). */
export const PARTNER_BACKUP_BODY_LIMIT = 64 * 1024 * 1024;
/** How many of a partner's most recent backups stay readable (`GET /partner/backup/versions`). */
export const PARTNER_BACKUPS_KEPT = 5;
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export const PartnerBackupVersion = z
  .object({
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('SHA-256 (lowercase hex) of the data text exactly as it was sent'),
    size: z.int().min(1).describe('length of the data text in bytes'),
    stored_at: z.int().min(0).describe('unix seconds'),
  })
  .meta({ id: 'PartnerBackupVersion', description: 'A stored appliance backup, without its data.' });
export type PartnerBackupVersion = z.infer<typeof PartnerBackupVersion>;

export const PartnerBackup = PartnerBackupVersion.extend({
  data: z.string().describe('the data exactly as it was sent (base64)'),
}).meta({ id: 'PartnerBackup', description: 'A stored appliance backup with its data.' });
export type PartnerBackup = z.infer<typeof PartnerBackup>;

/** What the gateway's body parser accepts, as documentation (the body is parsed as a stream, not by this schema). */
export const PartnerBackupBody = z
  .strictObject({
    sha256: z
      .string()
      .regex(SHA256_HEX)
      .describe('hex SHA-256 of the `data` string exactly as sent (the base64 text, not the decoded bytes); any case'),
    data: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9+/=\r\n]+$/)
      .describe('base64 (standard alphabet; line breaks allowed)'),
  })
  .meta({ id: 'PartnerBackupBody', description: 'An appliance configuration backup to store.' });

export const PartnerBackupQuery = z.object({
  sha256: z.string().regex(SHA256_HEX).optional().describe('read this kept version instead of the latest'),
});

// ---- bus ------------------------------------------------------------------------------------------

/** A backup's data, as the gateway put it into the blob store. */
export interface StorePartnerBackupRequest extends PartnerScoped {
  /** blob key: the SHA-256 of the data text, as the blob store computed it */
  blob: string;
  size: number;
}

export interface GetPartnerBackupRequest extends PartnerScoped {
  /** a kept version; absent: the latest */
  sha256?: string;
}

/** Where a stored backup's data is: the gateway streams it from the blob store. */
export interface PartnerBackupRef extends PartnerBackupVersion {
  blob: string;
}

// ---- events (stream partnerbackup-<partnerId>) -----------------------------------------------------

export type PartnerBackupStored = Event<
  'PartnerBackupStored',
  { blob: string; sha256: string; size: number; stored_at: number }
>;
export type PartnerBackupEvent = PartnerBackupStored;
