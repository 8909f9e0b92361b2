/**
 * Read model of appliance backups: one document per partner holding its most recent
 * `PARTNER_BACKUPS_KEPT` versions, newest first. Older versions stay in the stream (a few bytes
 * each) but are no longer readable.
 */
import {
  PARTNER_BACKUPS_KEPT,
  type PartnerBackupEvent,
  type PartnerBackupRef,
  StreamPrefixes,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface PartnerBackupsDoc {
  _id: string;
  versions: PartnerBackupRef[];
  [key: string]: unknown;
}

export const partnerBackupsCollection = (docs: DocumentStore) => docs.collection<PartnerBackupsDoc>('partner_backups');

export const partnerBackupsProjection = (): Projection => ({
  name: 'partner_backups',
  prefixes: [StreamPrefixes.partnerBackup],
  async apply(recorded, docs) {
    const event = { type: recorded.type, data: recorded.data } as PartnerBackupEvent;
    if (event.type !== 'PartnerBackupStored') return;
    const partnerId = recorded.stream.slice(StreamPrefixes.partnerBackup.length);
    const backups = partnerBackupsCollection(docs);
    const doc = (await backups.get(partnerId)) ?? { _id: partnerId, versions: [] };
    const { blob, sha256, size, stored_at } = event.data;
    // applying an event twice is harmless: a version already listed is not listed again
    const others = doc.versions.filter((v) => v.sha256 !== sha256);
    doc.versions = [{ blob, sha256, size, stored_at }, ...others].slice(0, PARTNER_BACKUPS_KEPT);
    await backups.upsert(doc);
  },
});

export async function partnerBackupVersions(docs: DocumentStore, partnerId: string): Promise<PartnerBackupRef[]> {
  return (await partnerBackupsCollection(docs).get(partnerId))?.versions ?? [];
}
