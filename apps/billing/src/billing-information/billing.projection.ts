/**
 * Read model of billing information, one document per partner that has a billing stream, and the
 * query that answers `GET /partner/billing`. A declined card leaves the document as it was.
 */
import { type BillingEvent, type BillingView, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';
import { DEFAULT_BILLING_MODE } from './billing.js';

export interface BillingDoc extends BillingView {
  _id: string;
  [key: string]: unknown;
}

export const billingCollection = (docs: DocumentStore) => docs.collection<BillingDoc>('billing');

const emptyView = (): BillingView => ({
  billing_mode: DEFAULT_BILLING_MODE,
  name: null,
  address: null,
  city: null,
  state: null,
  postal_code: null,
  country: null,
  card: null,
  updated_at: null,
});

export const billingProjection = (): Projection => ({
  name: 'billing',
  prefixes: [StreamPrefixes.billing],
  async apply(recorded, docs) {
    const partnerId = recorded.stream.slice(StreamPrefixes.billing.length);
    const event = { type: recorded.type, data: recorded.data } as BillingEvent;
    const collection = billingCollection(docs);
    const doc: BillingDoc = (await collection.get(partnerId)) ?? { _id: partnerId, ...emptyView() };
    switch (event.type) {
      case 'BillingModeSet':
        doc.billing_mode = event.data.billing_mode;
        if (event.data.billing_mode === 'invoice') doc.card = null;
        break;
      case 'BillingInformationUpdated': {
        const d = event.data;
        Object.assign(doc, {
          name: d.name,
          address: d.address,
          city: d.city,
          state: d.state,
          postal_code: d.postal_code,
          country: d.country,
          card: d.card,
          updated_at: d.at,
        });
        break;
      }
      default:
        return;
    }
    await collection.upsert(doc);
  },
});

export async function billingOf(docs: DocumentStore, partnerId: string): Promise<BillingView> {
  const doc = await billingCollection(docs).get(partnerId);
  if (!doc) return emptyView();
  const { _id, ...view } = doc;
  return view;
}
