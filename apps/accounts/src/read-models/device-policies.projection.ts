/** Read model of device policies, one document per live policy (from the `devicepolicies-` streams). */
import { conflict, type DevicePolicyEvent, type PolicyValues, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface DevicePolicyDoc {
  _id: string;
  partnerId: string;
  id: number;
  name: string;
  inherits_from: number | null;
  policy: PolicyValues;
  [key: string]: unknown;
}

export const devicePoliciesCollection = (docs: DocumentStore) => docs.collection<DevicePolicyDoc>('device_policies');

export const devicePoliciesProjection = (): Projection => ({
  name: 'device_policies',
  prefixes: [StreamPrefixes.devicePolicies],
  async init(docs) {
    await devicePoliciesCollection(docs).ensureIndex({ partnerId: 1, id: 1 });
  },
  async apply(recorded, docs) {
    const policies = devicePoliciesCollection(docs);
    const partnerId = recorded.stream.slice(StreamPrefixes.devicePolicies.length);
    const event = { type: recorded.type, data: recorded.data } as DevicePolicyEvent;
    const key = String(event.data.policyId);
    if (event.type === 'DevicePolicyCreated') {
      const d = event.data;
      await policies.upsert({
        _id: key,
        partnerId,
        id: d.policyId,
        name: d.name,
        inherits_from: d.inherits_from,
        policy: d.policy,
      });
      return;
    }
    if (event.type === 'DevicePolicyDeleted') {
      await policies.delete(key);
      return;
    }
    const doc = await policies.get(key);
    if (!doc) return;
    switch (event.type) {
      case 'DevicePolicyRenamed':
        doc.name = event.data.name;
        break;
      case 'DevicePolicyInheritanceChanged':
        doc.inherits_from = event.data.inherits_from;
        break;
      case 'DevicePolicyValuesSet':
        doc.policy = event.data.policy;
        break;
      default:
        return;
    }
    await policies.upsert(doc);
  },
});

/** The partner's live policy, or null (another partner's policy is as good as absent). */
export async function findDevicePolicy(
  docs: DocumentStore,
  partnerId: string,
  id: number,
): Promise<DevicePolicyDoc | null> {
  const doc = await devicePoliciesCollection(docs).get(String(id));
  return doc && doc.partnerId === partnerId ? doc : null;
}

/** For a group's `device_policy`: an unknown id is a 409, like an unknown plan_id. */
export async function requireDevicePolicy(docs: DocumentStore, partnerId: string, id: number): Promise<void> {
  if (!(await findDevicePolicy(docs, partnerId, id)))
    throw conflict(`device policy ${id} does not exist`, ['device_policy']);
}
