/** Read model of partners: credentials for authentication, limits, features and settings. */
import {
  notFound,
  type PartnerCreated,
  type PartnerFeatures,
  type PartnerSettings,
  StreamPrefixes,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { type Projection, dataOf } from '@burrow/eventsourcing';
import { DEFAULT_SETTINGS } from './settings.js';

export interface PartnerDoc {
  _id: string;
  username: string;
  company_name: string;
  brand_identifier: string;
  passwordHash: string;
  bytes_available: number | null;
  features: PartnerFeatures;
  settings: PartnerSettings;
  [key: string]: unknown;
}

export const partnersCollection = (docs: DocumentStore) => docs.collection<PartnerDoc>('partners');

export const partnersProjection = (): Projection => ({
  name: 'partners',
  prefixes: [StreamPrefixes.partner],
  async init(docs) {
    await partnersCollection(docs).ensureIndex({ username: 1 }, { unique: true });
  },
  async apply(event, docs) {
    const partners = partnersCollection(docs);
    const partnerId = event.stream.slice(StreamPrefixes.partner.length);
    if (event.type === 'PartnerCreated') {
      const d = dataOf<PartnerCreated>(event);
      await partners.upsert({
        _id: d.partnerId,
        username: d.username,
        company_name: d.company_name,
        brand_identifier: d.brand_identifier,
        passwordHash: d.passwordHash,
        bytes_available: d.bytes_available,
        features: d.features,
        settings: { ...DEFAULT_SETTINGS },
      });
      return;
    }
    const doc = await partners.get(partnerId);
    if (!doc) return;
    const d = event.data;
    switch (event.type) {
      case 'PartnerPasswordChanged':
        doc.passwordHash = d.passwordHash as string;
        break;
      case 'PartnerSettingsChanged':
        doc.settings = { ...doc.settings, ...(d.changes as Partial<PartnerSettings>) };
        break;
      case 'PartnerLimitsChanged':
        if ('bytes_available' in d) doc.bytes_available = d.bytes_available as number | null;
        if (d.features) doc.features = { ...doc.features, ...(d.features as Partial<PartnerFeatures>) };
        break;
      default:
        return;
    }
    await partners.upsert(doc);
  },
});

/** The partner's read-model document; 404 when unknown. */
export async function requirePartner(docs: DocumentStore, partnerId: string): Promise<PartnerDoc> {
  const doc = await partnersCollection(docs).get(partnerId);
  if (!doc) throw notFound('no such partner');
  return doc;
}
