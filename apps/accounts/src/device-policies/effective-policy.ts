/**
 * What a device under a policy gets: every preference at its default, overridden by each ancestor
 * from the root of the inheritance chain down, then by the policy's own values.
 */
import { PREFERENCE_DEFAULTS, type PolicyValues } from '@burrow/contracts';

export interface PolicyLink {
  inherits_from: number | null;
  policy: PolicyValues;
}

/**
 * `lookup` gives a policy of the same partner by id. An ancestor that cannot be found (a read model
 * lagging a delete) ends the chain there; a chain longer than `maxDepth` (only a corrupt read model
 * could hold a cycle: the decider refuses them) is cut.
 */
export function effectivePolicy(
  policy: PolicyLink,
  lookup: (id: number) => PolicyLink | undefined,
  maxDepth = 1000,
): PolicyValues {
  const chain: PolicyLink[] = [policy];
  for (let parent = policy.inherits_from; parent !== null && chain.length <= maxDepth;) {
    const next = lookup(parent);
    if (!next) break;
    chain.push(next);
    parent = next.inherits_from;
  }
  return Object.assign({ ...PREFERENCE_DEFAULTS }, ...chain.reverse().map((p) => p.policy)) as PolicyValues;
}
