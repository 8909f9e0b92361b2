/**
 * PROPFIND (RFC 4918 §9.1): Depth 0 or 1 (infinity, which an absent Depth means, is refused with
 * 403 and the propfind-finite-depth precondition: a tree of any size is not walked in one
 * request). A folder's members are read a page at a time and streamed.
 */
import { badRequest } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { MultistatusWriter, propstatXml, responseXml, sendError } from './multistatus.js';
import { type DavResource, propertiesFor, PropertyNames, type PropRequest } from './properties.js';
import { deviceResource, fileResource, folderResource, readPath, readRoot, rootResource } from './resources.js';
import { child, clark, DAV, elementsOf, parseXml, PropertyKeys } from './xml.js';

export function propRequestOf(body: string): PropRequest {
  const root = parseXml(body);
  if (!root) return { kind: 'allprop', include: [] };
  if (root.ns !== DAV || root.name !== 'propfind')
    throw badRequest('a PROPFIND body is a DAV:propfind element', ['body']);
  if (child(root, DAV, 'propname')) return { kind: 'propname' };
  const keys = new PropertyKeys();
  if (child(root, DAV, 'allprop')) {
    const include = child(root, DAV, 'include');
    return { kind: 'allprop', include: include ? elementsOf(include).map((e) => keys.key(e)) : [] };
  }
  const prop = child(root, DAV, 'prop');
  if (!prop) throw badRequest('a DAV:propfind holds DAV:prop, DAV:allprop or DAV:propname', ['body']);
  return { kind: 'prop', keys: elementsOf(prop).map((e) => keys.key(e)) };
}

function resourceXml(r: DavResource, request: PropRequest, names: PropertyNames): string {
  const { found, missing } = propertiesFor(r, request, names);
  return responseXml(
    r.href,
    (found.length || !missing.length ? propstatXml(found, 200) : '') +
      (missing.length ? propstatXml(missing, 404) : ''),
  );
}

/**
 * Does the response show a quota property? Only then are the quota figures read (the user's plan
 * and stored bytes): allprop leaves them out (RFC 4331 §3), propname names them.
 */
const QUOTA_KEYS = [clark(DAV, 'quota-used-bytes'), clark(DAV, 'quota-available-bytes')];
const showsQuota = (request: PropRequest) =>
  request.kind === 'propname' ||
  (request.kind === 'prop' ? request.keys : request.include).some((key) => QUOTA_KEYS.includes(key));

/** Does the response show lockdiscovery (and so the owners of the locks it lists)? */
const showsLocks = (request: PropRequest) =>
  request.kind === 'allprop' || (request.kind === 'prop' && request.keys.includes(clark(DAV, 'lockdiscovery')));

export async function propfind(call: DavCall, body: string): Promise<void> {
  const depth = String(call.req.headers.depth ?? 'infinity')
    .trim()
    .toLowerCase();
  if (depth !== '0' && depth !== '1') {
    if (depth === 'infinity') return sendError(call.res, 403, 'propfind-finite-depth');
    throw badRequest('Depth is 0, 1 or infinity', ['Depth']);
  }
  const request = propRequestOf(body);
  // the namespaces the request names are declared once, on the multistatus element
  const names = new PropertyNames(
    request.kind === 'prop' ? request.keys : request.kind === 'allprop' ? request.include : [],
  );
  const locks = await call.locks.list(call.user.userId);
  const { target } = call;
  const out = new MultistatusWriter(call.res, names);
  const discovery = showsLocks(request);
  /** Writes a resource's response; its locks' owners are read only when it has locks to show. */
  const write = async (r: DavResource) => {
    if (discovery && r.locks.some((l) => l.owned)) {
      const owners = await call.locks.owners(call.user.userId, r.locks);
      r.locks = r.locks.map((l) => ({ ...l, owner: owners.get(l.token) ?? '' }));
    }
    await out.write(resourceXml(r, request, names));
  };
  if (target.device === null) {
    const root = await readRoot(call);
    const self = rootResource(target.user, root, locks);
    out.start();
    await write(self);
    if (depth === '1') for (const d of root.devices) await write(deviceResource(target.user, d, self.quota!, locks));
    out.end();
    return;
  }
  let stat = await readPath(call, target, depth === '1' ? {} : undefined, { figures: showsQuota(request) });
  out.start();
  if (stat.kind === 'file') {
    await write(fileResource(target.user, target.device, stat.file, stat.props, locks));
    out.end();
    return;
  }
  // read once: the figures are the user's, the same for every folder listed
  const quota = stat.quota;
  await write(folderResource(target.user, target.device, stat.folder, quota, locks));
  while (stat.kind === 'folder' && stat.members) {
    for (const d of stat.members.dirs) await write(folderResource(target.user, target.device, d, quota, locks));
    for (const f of stat.members.files) await write(fileResource(target.user, target.device, f, f.props, locks));
    if (!stat.members.next) break;
    stat = await readPath(call, { ...target, slash: true }, { cursor: stat.members.next }, { figures: false });
  }
  out.end();
}
