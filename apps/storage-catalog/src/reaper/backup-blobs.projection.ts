/**
 * Blobs the accounts service keeps for partners' appliance configuration backups
 * (`partnerbackup-<partnerId>` streams, `PartnerBackupStored`): the blob reaper must not take them.
 * One document per (partner, blob) for the `PARTNER_BACKUPS_KEPT` latest backups of each partner;
 * older ones are dropped here, so their blobs are reaped like any other unreferenced blob (unless a
 * user's file version holds the same bytes).
 */
import { PARTNER_BACKUPS_KEPT, type PartnerBackupStored, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface BackupBlobDoc {
  /** `<partnerId>:<blob>` */
  _id: string;
  partnerId: string;
  blob: string;
  /** the event's position: the order of the partner's backups */
  position: number;
  [key: string]: unknown;
}

export const backupBlobsCollection = (docs: DocumentStore) => docs.collection<BackupBlobDoc>('backup_blobs');

export const backupBlobsProjection = (): Projection => ({
  name: 'backup-blobs',
  prefixes: [StreamPrefixes.partnerBackup],
  async init(docs) {
    await backupBlobsCollection(docs).ensureIndex({ blob: 1 });
    await backupBlobsCollection(docs).ensureIndex({ partnerId: 1, position: -1 });
  },
  async apply(event, docs) {
    if (event.type !== 'PartnerBackupStored') return;
    const partnerId = event.stream.slice(StreamPrefixes.partnerBackup.length);
    const { blob } = event.data as PartnerBackupStored['data'];
    const blobs = backupBlobsCollection(docs);
    await blobs.upsert({ _id: `${partnerId}:${blob}`, partnerId, blob, position: event.position });
    // only the latest few are kept readable by the accounts service; bounded work per event
    const stale = await blobs.find({ partnerId }, { sort: { position: -1 }, skip: PARTNER_BACKUPS_KEPT, limit: 10 });
    for (const doc of stale) await blobs.delete(doc._id);
  },
});
