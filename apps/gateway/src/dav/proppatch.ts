/**
 * PROPPATCH (RFC 4918 §9.2): sets and removes dead properties in document order, all or nothing.
 * Live properties are protected (403 with cannot-modify-protected-property; the others then fail
 * with 424). A property's value keeps its XML, namespaces included. The user's root and the
 * devices take no properties (403). `oc:checksums` is the exception: ownCloud clients (rclone's
 * owncloud vendor, when it sets a modification time) send the checksums they know with it; Burrow
 * keeps its own, computed from the bytes, and answers 200 without storing theirs.
 */
import { badRequest, DEAD_PROPERTIES_MAX_BYTES, DomainError, Subjects } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { propstatXml, responseXml, sendMultistatus } from './multistatus.js';
import { isLive, OC_CHECKSUMS, PropertyNames } from './properties.js';
import { readPath } from './resources.js';
import { hrefOf } from './target.js';
import { guardWrite } from './write-guard.js';
import { child, DAV, elementsOf, parseXml, PropertyKeys, serializeContent, XmlBudget } from './xml.js';

interface PatchPlan {
  /** every property named, in the order first named */
  names: string[];
  set: Record<string, string>;
  remove: string[];
}

export function patchPlanOf(body: string): PatchPlan {
  const root = parseXml(body);
  if (!root || root.ns !== DAV || root.name !== 'propertyupdate')
    throw badRequest('a PROPPATCH body is a DAV:propertyupdate element', ['body']);
  // document order: the last instruction about a property wins
  const last = new Map<string, string | null>();
  // what is set can be stored only within a file's or folder's limit: refused (413) as soon as the
  // values written as XML pass it, before a larger string is built
  const keys = new PropertyKeys();
  const budget = new XmlBudget(
    DEAD_PROPERTIES_MAX_BYTES,
    `the properties set take more than ${DEAD_PROPERTIES_MAX_BYTES} bytes (names and values as XML), the most a file or folder holds`,
  );
  for (const op of elementsOf(root)) {
    if (op.ns !== DAV || (op.name !== 'set' && op.name !== 'remove')) continue;
    const prop = child(op, DAV, 'prop');
    if (!prop) throw badRequest(`DAV:${op.name} holds a DAV:prop`, ['body']);
    for (const p of elementsOf(prop)) {
      const key = keys.key(p);
      last.delete(key);
      if (op.name === 'set') budget.take(key);
      last.set(key, op.name === 'set' ? serializeContent(p, budget) : null);
    }
  }
  if (!last.size) throw badRequest('the PROPPATCH names no property', ['body']);
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const [key, value] of last) {
    if (value === null) remove.push(key);
    else set[key] = value;
  }
  return { names: [...last.keys()], set, remove };
}

export async function proppatch(call: DavCall, body: string): Promise<void> {
  const plan = patchPlanOf(body);
  const { target } = call;
  const collection = target.slash || !target.path;
  const href = hrefOf(target.user, target.device, target.path, collection);
  // the names' namespaces are declared once, on the multistatus element
  const names = new PropertyNames(plan.names);
  const elements = (keys: string[]) => keys.map((k) => names.element(k));
  const refused = target.device === null ? plan.names : plan.names.filter((n) => isLive(n) && n !== OC_CHECKSUMS);
  if (refused.length) {
    const refusedSet = new Set(refused);
    const others = plan.names.filter((n) => !refusedSet.has(n));
    const body403 = propstatXml(elements(refused), 403, '<D:cannot-modify-protected-property/>');
    const body424 = others.length ? propstatXml(elements(others), 424) : '';
    return sendMultistatus(call.res, [responseXml(href, body403 + body424)], names);
  }
  await guardWrite(call, [{ target }]);
  const { [OC_CHECKSUMS]: _theirs, ...set } = plan.set;
  const remove = plan.remove.filter((n) => n !== OC_CHECKSUMS);
  try {
    const path = target.slash && target.path ? `${target.path}/` : target.path;
    if (Object.keys(set).length || remove.length)
      await call.rpc.call(Subjects.storage.setProperties, {
        userId: call.user.userId,
        device: target.device,
        path,
        set,
        remove,
      });
    else await readPath(call, target); // nothing to store: the resource must still exist (404 otherwise)
  } catch (error) {
    if (error instanceof DomainError && error.status === 507) {
      return sendMultistatus(call.res, [responseXml(href, propstatXml(elements(plan.names), 507))], names);
    }
    throw error;
  }
  sendMultistatus(call.res, [responseXml(href, propstatXml(elements(plan.names), 200))], names);
}
