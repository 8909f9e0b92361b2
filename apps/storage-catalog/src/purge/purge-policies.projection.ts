/**
 * What the purger needs to know of each partner (`purge_policies`, one document per partner): its
 * purge settings, from the accounts service's `partner-` streams (`PartnerCreated` gives the
 * defaults, `PartnerSettingsChanged` changes them), and the time of the latest deletion anywhere in
 * the enterprise, from the storage catalog's own `FileDeleted`, `FolderDeleted` and `DeviceRemoved`
 * (each carries its partner; a `DeviceRemoved` written without one, by test fixtures of the
 * accounts service, is not counted).
 */
import { type DeviceEvent, type FileEvent, type PartnerSettingsChanged, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';
import { DEFAULT_PURGE_POLICY, type PurgePolicy } from './purge-rules.js';

export interface PurgePolicyDoc extends PurgePolicy {
  /** the partner's id */
  _id: string;
  [key: string]: unknown;
}

export const purgePoliciesCollection = (docs: DocumentStore) => docs.collection<PurgePolicyDoc>('purge_policies');

/** The partner's policy; the defaults for a partner the projection has not seen. */
export async function purgePolicyOf(docs: DocumentStore, partnerId: string): Promise<PurgePolicyDoc> {
  return (await purgePoliciesCollection(docs).get(partnerId)) ?? { _id: partnerId, ...DEFAULT_PURGE_POLICY };
}

const SETTINGS = ['autopurge_interval', 'purgehold_duration', 'versionpurge_interval'] as const;

export const purgePoliciesProjection = (): Projection => ({
  name: 'purge-policies',
  prefixes: [StreamPrefixes.partner, StreamPrefixes.file, StreamPrefixes.device],
  async init(docs) {
    await purgePoliciesCollection(docs).ensureIndex({ autopurge_interval: 1 });
    await purgePoliciesCollection(docs).ensureIndex({ versionpurge_interval: 1 });
  },
  async apply(event, docs) {
    const policies = purgePoliciesCollection(docs);
    if (event.stream.startsWith(StreamPrefixes.partner)) {
      const partnerId = event.stream.slice(StreamPrefixes.partner.length);
      if (event.type === 'PartnerCreated') {
        // a deletion cannot come before its partner; keep one if it somehow did
        const doc = await purgePolicyOf(docs, partnerId);
        await policies.upsert({ ...doc, ...DEFAULT_PURGE_POLICY, last_deletion_at: doc.last_deletion_at });
      } else if (event.type === 'PartnerSettingsChanged') {
        const changes = (event.data as PartnerSettingsChanged['data']).changes as Record<string, unknown>;
        if (!SETTINGS.some((key) => key in changes)) return;
        const doc = await purgePolicyOf(docs, partnerId);
        for (const key of SETTINGS) if (key in changes) doc[key] = (changes[key] as number | null) ?? null;
        await policies.upsert(doc);
      }
      return;
    }
    const e = { type: event.type, data: event.data } as FileEvent | DeviceEvent;
    if (e.type !== 'FileDeleted' && e.type !== 'FolderDeleted' && e.type !== 'DeviceRemoved') return;
    const { partnerId, at } = e.data;
    if (!partnerId) return;
    const doc = await purgePolicyOf(docs, partnerId);
    if (doc.last_deletion_at !== null && doc.last_deletion_at >= at) return;
    await policies.upsert({ ...doc, last_deletion_at: at });
  },
});
