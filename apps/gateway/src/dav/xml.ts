/**
 * The XML of WebDAV request bodies, parsed with saxes (namespace-aware, no DTD processing): a
 * document type declaration is refused outright and an entity other than XML's five predefined
 * ones is an error, so neither external entities (XXE) nor entity expansion ("billion laughs")
 * can happen; depth and element count are bounded too. Malformed XML, and XML that breaks
 * namespace rules (`xmlns:p=""`), is a 400 (RFC 4918 §8.2).
 *
 * The tree keeps what dead properties need to round-trip: each element's namespace, local name,
 * prefix, attributes and children, in order.
 */
import { badRequest, DomainError } from '@burrow/contracts';
import { SaxesParser } from 'saxes';

export interface XmlElement {
  ns: string;
  name: string;
  prefix: string;
  attrs: { ns: string; name: string; prefix: string; value: string }[];
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const MAX_DEPTH = 64;
const MAX_ELEMENTS = 20_000;

export const DAV = 'DAV:';

/** Parses a request body; null for an empty one. */
export function parseXml(text: string): XmlElement | null {
  if (text.trim() === '') return null;
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let elements = 0;
  let failure: string | null = null;
  parser.on('doctype', () => {
    failure = 'a document type declaration is not accepted';
  });
  parser.on('opentag', (tag) => {
    if (++elements > MAX_ELEMENTS || stack.length >= MAX_DEPTH) failure = 'the XML body is too large or too deep';
    const attrs = Object.values(
      tag.attributes as Record<string, { uri: string; local: string; prefix: string; value: string }>,
    )
      .filter((a) => a.prefix !== 'xmlns' && !(a.prefix === '' && a.local === 'xmlns'))
      .map((a) => ({ ns: a.uri, name: a.local, prefix: a.prefix, value: a.value }));
    const element: XmlElement = {
      ns: tag.uri ?? '',
      name: tag.local ?? tag.name,
      prefix: tag.prefix ?? '',
      attrs,
      children: [],
    };
    if (stack.length) stack[stack.length - 1].children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (text) => {
    if (stack.length) stack[stack.length - 1].children.push(text);
  });
  parser.on('cdata', (text) => {
    if (stack.length) stack[stack.length - 1].children.push(text);
  });
  try {
    parser.write(text).close();
  } catch (error) {
    throw badRequest(`the XML body is not well-formed: ${(error as Error).message}`, ['body']);
  }
  if (failure) throw badRequest(failure, ['body']);
  if (!root) throw badRequest('the XML body has no element', ['body']);
  return root;
}

export const isElement = (node: XmlNode): node is XmlElement => typeof node !== 'string';
export const elementsOf = (e: XmlElement) => e.children.filter(isElement);
export const child = (e: XmlElement, ns: string, name: string) =>
  elementsOf(e).find((c) => c.ns === ns && c.name === name);
export const textOf = (e: XmlElement): string =>
  e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');

/**
 * A property's key: `{namespace}name` (Clark notation). The name is an XML NCName, which holds
 * no `}`, so the last `}` ends the namespace whatever the namespace holds: the key reads back
 * unambiguously even when the namespace has a `}` (it may: a namespace is any URI reference).
 */
export const clark = (ns: string, name: string) => `{${ns}}${name}`;
/** The namespace and name of a key; null for a key that is not one (never written out). */
export function parseClark(key: string): { ns: string; name: string } | null {
  const close = key.lastIndexOf('}');
  if (key[0] !== '{' || close < 0) return null;
  const name = key.slice(close + 1);
  return isNcName(name) ? { ns: key.slice(1, close), name } : null;
}

/**
 * What the property names of one PROPFIND or PROPPATCH may take in all (namespaces and local
 * names, in characters). A key holds its namespace, so naming thousands of properties in one long
 * namespace would otherwise make as many copies of it (6,000 names in an 800 KiB namespace: 4.9 GB
 * from a body under 1 MiB). Clients name a few dozen properties in short namespaces.
 */
export const PROPERTY_NAMES_MAX_CHARS = 64 * 1024;

/** The keys of the properties a request names, counted before each is built: 413 past PROPERTY_NAMES_MAX_CHARS. */
export class PropertyKeys {
  private used = 0;

  key(e: XmlElement): string {
    this.used += e.ns.length + e.name.length + 2;
    if (this.used > PROPERTY_NAMES_MAX_CHARS) {
      throw new DomainError(413, {
        reason: `the properties a request names take at most ${PROPERTY_NAMES_MAX_CHARS} characters in all (namespaces and names)`,
      });
    }
    return clark(e.ns, e.name);
  }
}

// Namespaces in XML 1.0, NCName: XML's Name without ':'.
const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
// eslint-disable-next-line no-misleading-character-class -- XML's NCName production lists combining marks as name characters
const NC_NAME = new RegExp(`^[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`, 'u');
export const isNcName = (name: string) => NC_NAME.test(name);

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
};
/** Escapes for any place (text or an attribute value in either quotes). */
export const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
/** Text content: only what must be escaped there (`"` stays one byte, not six); a CR kept as one. */
const escapeText = (s: string) => s.replace(/[&<>\r]/g, (c) => ESCAPES[c]);
/** An attribute value between double quotes. */
const escapeAttr = (s: string) => s.replace(/[&<"\r]/g, (c) => ESCAPES[c]);

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** What serialising a value (a dead property, a lock owner) may take, in UTF-8 bytes; 413 past it. */
export class XmlBudget {
  private used = 0;
  constructor(
    readonly max: number,
    /** the 413's reason */
    private readonly reason: string,
  ) {}

  take(piece: string): string {
    this.used += Buffer.byteLength(piece);
    if (this.used > this.max) throw new DomainError(413, { reason: this.reason });
    return piece;
  }
}

/**
 * The content of an element (a property's value, a lock's owner) as XML that stands on its own:
 * each element declares the namespaces it uses that no element above it (within the value) has
 * declared, so nested elements reuse their ancestors' declarations and a namespace is written once
 * per top-level element that uses it. Written a piece at a time against `budget`: a value whose
 * XML would pass it is refused (413) as soon as it does, never built whole.
 */
export function serializeContent(e: XmlElement, budget: XmlBudget): string {
  const parts: string[] = [];
  const put = (piece: string) => void parts.push(budget.take(piece));
  const write = (node: XmlNode, scope: ReadonlyMap<string, string>, top: boolean): void => {
    if (typeof node === 'string') return put(escapeText(node));
    let inScope = scope;
    const declarations: string[] = [];
    const prefixOf = (ns: string): string => {
      if (ns === XML_NS) return 'xml';
      let prefix = inScope.get(ns);
      if (prefix === undefined) {
        // n<k> where k counts the declarations above and here: unique along this element's ancestry
        prefix = `n${inScope.size}`;
        if (inScope === scope) inScope = new Map(scope);
        (inScope as Map<string, string>).set(ns, prefix);
        declarations.push(` xmlns:${prefix}="${escapeAttr(ns)}"`);
      }
      return prefix;
    };
    const tag = node.ns ? `${prefixOf(node.ns)}:${node.name}` : node.name;
    const attributes = node.attrs.map((a) => ` ${a.ns ? `${prefixOf(a.ns)}:` : ''}${a.name}="${escapeAttr(a.value)}"`);
    put(`<${tag}`);
    // an element in no namespace says so, so that the value reads the same inside a default namespace
    if (top && !node.ns) put(' xmlns=""');
    for (const piece of declarations) put(piece);
    for (const piece of attributes) put(piece);
    if (!node.children.length) return put('/>');
    put('>');
    for (const c of node.children) write(c, inScope, false);
    put(`</${tag}>`);
  };
  for (const c of e.children) write(c, new Map(), true);
  return parts.join('');
}
