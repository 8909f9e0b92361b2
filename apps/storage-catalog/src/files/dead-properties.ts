/**
 * WebDAV dead properties (what PROPPATCH sets that the server does not compute): a file's or a
 * folder's whole set after a change, bounded so that a client cannot grow a document or an event
 * without limit (past the bounds: 507, as RFC 4918 §9.2 has it for a server that cannot store
 * more). What one user's properties take together is bounded too (`dead-property-usage.ts`).
 */
import { type DeadProperties, DEAD_PROPERTIES_MAX, DEAD_PROPERTIES_MAX_BYTES, DomainError } from '@burrow/contracts';
import { propertyBytes as bytesOf } from '../read-models/dead-property-usage.js';

/** The set after setting `set` and removing `remove` (removing an absent one is no error). */
export function changedProperties(current: DeadProperties, set: DeadProperties, remove: string[]): DeadProperties {
  const props: DeadProperties = { ...current };
  for (const [name, value] of Object.entries(set)) props[name] = value;
  for (const name of remove) delete props[name];
  if (Object.keys(props).length > DEAD_PROPERTIES_MAX)
    throw new DomainError(507, { reason: `at most ${DEAD_PROPERTIES_MAX} properties per file or folder` });
  if (bytesOf(props) > DEAD_PROPERTIES_MAX_BYTES)
    throw new DomainError(507, {
      reason: `at most ${DEAD_PROPERTIES_MAX_BYTES} bytes of properties per file or folder`,
    });
  return props;
}

export function sameProperties(a: DeadProperties, b: DeadProperties): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
