/**
 * The properties of a resource as PROPFIND shows them: the live ones Burrow computes (RFC 4918
 * §15, quotas from RFC 4331) and the dead ones clients set (PROPPATCH), in XML that stands on its
 * own namespace-wise. Live properties are protected: PROPPATCH cannot change them.
 */
import { type DeadProperties, type FileChecksums, ocChecksums } from '@burrow/contracts';
import { httpDate } from '../transfers/download.js';
import type { DavLock } from './locks.js';
import { clark, DAV, escapeXml, parseClark } from './xml.js';

export interface DavResource {
  href: string;
  collection: boolean;
  displayname: string;
  /** files */
  size?: number;
  etag?: string;
  contentType?: string;
  /** unix seconds; absent: unknown (a folder that exists through its files) */
  modified?: number | null;
  created?: number | null;
  /** collections: the user's quota */
  quota?: { used: number; available: number | null };
  /** files: SHA-1 and MD5 (oc:checksums), when the version has them */
  checksums?: FileChecksums;
  dead: DeadProperties;
  /** live locks on it, for lockdiscovery (their owners filled in when a response shows them) */
  locks: ShownLock[];
}

/** A lock as lockdiscovery shows it: with its root's href and its owner's XML ('' when none or not read). */
export type ShownLock = DavLock & { root: string; owner: string };

const LIVE = [
  'resourcetype',
  'getcontentlength',
  'getlastmodified',
  'getetag',
  'getcontenttype',
  'creationdate',
  'displayname',
  'lockdiscovery',
  'supportedlock',
  'quota-available-bytes',
  'quota-used-bytes',
];
/** What allprop leaves out (RFC 4331 §3: quotas are computed on demand only). */
const NOT_IN_ALLPROP = new Set(['quota-available-bytes', 'quota-used-bytes']);

/** ownCloud's namespace: `oc:checksums` is live (the checksums rclone and ownCloud's clients verify with). */
export const OC = 'http://owncloud.org/ns';
export const OC_CHECKSUMS = clark(OC, 'checksums');

export const isLive = (key: string) => {
  const parsed = parseClark(key);
  return parsed !== null && ((parsed.ns === DAV && LIVE.includes(parsed.name)) || key === OC_CHECKSUMS);
};

const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function activeLockXml(lock: ShownLock, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((lock.expires - now) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${lock.scope}/></D:lockscope>` +
    `<D:depth>${lock.depth === 'infinity' ? 'infinity' : '0'}</D:depth>${lock.owner ? `<D:owner>${lock.owner}</D:owner>` : ''}` +
    `<D:timeout>Second-${seconds}</D:timeout><D:locktoken><D:href>${escapeXml(lock.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${escapeXml(lock.root)}</D:href></D:lockroot></D:activelock>`
  );
}

/** The content of a live property, or undefined when the resource has none of it. */
function liveValue(r: DavResource, name: string): string | undefined {
  switch (name) {
    case 'resourcetype':
      return r.collection ? '<D:collection/>' : '';
    case 'displayname':
      return escapeXml(r.displayname);
    case 'getcontentlength':
      return r.collection ? undefined : String(r.size ?? 0);
    case 'getetag':
      return r.etag === undefined ? undefined : escapeXml(r.etag);
    case 'getcontenttype':
      return r.contentType === undefined ? undefined : escapeXml(r.contentType);
    case 'getlastmodified':
      return r.modified === undefined || r.modified === null ? undefined : httpDate(r.modified);
    case 'creationdate':
      return r.created === undefined || r.created === null ? undefined : iso(r.created);
    case 'supportedlock':
      return ['exclusive', 'shared']
        .map(
          (s) => `<D:lockentry><D:lockscope><D:${s}/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`,
        )
        .join('');
    case 'lockdiscovery':
      return r.locks.map((l) => activeLockXml(l)).join('');
    case 'quota-used-bytes':
      return r.quota ? String(r.quota.used) : undefined;
    case 'quota-available-bytes':
      return r.quota && r.quota.available !== null ? String(r.quota.available) : undefined;
    default:
      return undefined;
  }
}

/** `<oc:checksum>SHA1:<hex> MD5:<hex></oc:checksum>` (its namespace declared on it), as ownCloud answers and rclone reads. */
const checksumsValue = (r: DavResource): string | undefined =>
  r.checksums ? `<oc:checksum xmlns:oc="${OC}">${ocChecksums(r.checksums)}</oc:checksum>` : undefined;

/**
 * How one response names properties: `DAV:` is `D`, and the namespaces a request names get a
 * prefix each, declared once on the response's root (`declarations`), so a request naming
 * thousands of properties in one long namespace is answered with that namespace written once.
 * Any other namespace (a dead property's, in allprop or propname) is declared on its element.
 */
export class PropertyNames {
  private readonly prefixes = new Map<string, string>([[DAV, 'D']]);

  constructor(keys: Iterable<string> = []) {
    for (const key of keys) {
      const parsed = parseClark(key);
      if (parsed && parsed.ns && !this.prefixes.has(parsed.ns))
        this.prefixes.set(parsed.ns, `n${this.prefixes.size - 1}`);
    }
  }

  /** The namespace declarations for the root element (after `xmlns:D="DAV:"`). */
  declarations(): string {
    return [...this.prefixes]
      .filter(([ns]) => ns !== DAV)
      .map(([ns, prefix]) => ` xmlns:${prefix}="${escapeXml(ns)}"`)
      .join('');
  }

  /** A property element with its content (empty: an empty element); '' for a key that is none. */
  element(key: string, content = ''): string {
    const parsed = parseClark(key);
    if (!parsed) return '';
    const { ns, name } = parsed;
    const prefix = this.prefixes.get(ns);
    // no default namespace is ever declared around a property: a name without a prefix has none
    const tag = !ns ? name : prefix ? `${prefix}:${name}` : `x:${name}`;
    const open = ns && !prefix ? `<${tag} xmlns:x="${escapeXml(ns)}"` : `<${tag}`;
    return content ? `${open}>${content}</${tag}>` : `${open}/>`;
  }
}

export type PropRequest =
  { kind: 'allprop'; include: string[] } | { kind: 'propname' } | { kind: 'prop'; keys: string[] };

/** The resource's properties for a request, by status (200 found, 404 not). */
export function propertiesFor(
  r: DavResource,
  request: PropRequest,
  names: PropertyNames,
): { found: string[]; missing: string[] } {
  if (request.kind === 'propname') {
    const keys = [
      ...LIVE.filter((n) => liveValue(r, n) !== undefined).map((n) => clark(DAV, n)),
      ...(r.checksums ? [OC_CHECKSUMS] : []),
      ...Object.keys(r.dead),
    ];
    return { found: keys.map((k) => names.element(k)).filter(Boolean), missing: [] };
  }
  const keys =
    request.kind === 'prop'
      ? request.keys
      : [
          ...LIVE.filter((n) => !NOT_IN_ALLPROP.has(n)).map((n) => clark(DAV, n)),
          ...Object.keys(r.dead),
          ...request.include,
        ];
  const found: string[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    const parsed = parseClark(key);
    // a key that names no property (none is stored now; one from before the keys were read
    // unambiguously could be) is left out rather than written as broken XML
    if (!parsed) continue;
    const value =
      parsed.ns === DAV && LIVE.includes(parsed.name)
        ? liveValue(r, parsed.name)
        : key === OC_CHECKSUMS
          ? checksumsValue(r)
          : Object.hasOwn(r.dead, key)
            ? r.dead[key]
            : undefined;
    if (value === undefined) {
      if (request.kind === 'prop') missing.push(names.element(key));
    } else found.push(names.element(key, value));
  }
  return { found, missing };
}
