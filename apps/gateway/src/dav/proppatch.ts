/**
 * PROPPATCH (RFC 4918 §9.2): sets and removes dead properties in document order, all or nothing.
 * Live properties are protected (403 with cannot-modify-protected-property; the others then fail
 * with 424). A property's value keeps its XML, namespaces included. The user's root and the
 * devices take no properties (403).
 */
import { badRequest, DomainError, Subjects } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { propstatXml, responseXml, sendMultistatus } from './multistatus.js';
import { isLive, propertyXml } from './properties.js';
import { hrefOf } from './target.js';
import { guardWrite } from './write-guard.js';
import { child, clark, DAV, elementsOf, parseXml, serializeContent } from './xml.js';

interface PatchPlan {
  /** every property named, in the order first named */
  names: string[];
  set: Record<string, string>;
  remove: string[];
}

export function patchPlanOf(body: string): PatchPlan {
  const root = parseXml(body);
  if (!root || root.ns !== DAV || root.name !== 'propertyupdate') throw badRequest('a PROPPATCH body is a DAV:propertyupdate element', ['body']);
  // document order: the last instruction about a property wins
  const last = new Map<string, string | null>();
  for (const op of elementsOf(root)) {
    if (op.ns !== DAV || (op.name !== 'set' && op.name !== 'remove')) continue;
    const prop = child(op, DAV, 'prop');
    if (!prop) throw badRequest(`DAV:${op.name} holds a DAV:prop`, ['body']);
    for (const p of elementsOf(prop)) {
      const key = clark(p.ns, p.name);
      last.delete(key);
      last.set(key, op.name === 'set' ? serializeContent(p) : null);
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
  const refused = target.device === null ? plan.names : plan.names.filter(isLive);
  if (refused.length) {
    const others = plan.names.filter((n) => !refused.includes(n));
    const body403 = propstatXml(refused.map((k) => propertyXml(k)), 403, '<D:cannot-modify-protected-property/>');
    const body424 = others.length ? propstatXml(others.map((k) => propertyXml(k)), 424) : '';
    return sendMultistatus(call.res, [responseXml(href, body403 + body424)]);
  }
  await guardWrite(call, [{ target }]);
  try {
    const path = target.slash && target.path ? `${target.path}/` : target.path;
    await call.rpc.call(Subjects.storage.setProperties, { userId: call.user.userId, device: target.device, path, set: plan.set, remove: plan.remove });
  } catch (error) {
    if (error instanceof DomainError && error.status === 507) {
      return sendMultistatus(call.res, [responseXml(href, propstatXml(plan.names.map((k) => propertyXml(k)), 507))]);
    }
    throw error;
  }
  sendMultistatus(call.res, [responseXml(href, propstatXml(plan.names.map((k) => propertyXml(k)), 200))]);
}
