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
import { badRequest } from '@burrow/contracts';
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
    const attrs = Object.values(tag.attributes as Record<string, { uri: string; local: string; prefix: string; value: string }>)
      .filter((a) => a.prefix !== 'xmlns' && !(a.prefix === '' && a.local === 'xmlns'))
      .map((a) => ({ ns: a.uri, name: a.local, prefix: a.prefix, value: a.value }));
    const element: XmlElement = { ns: tag.uri ?? '', name: tag.local ?? tag.name, prefix: tag.prefix ?? '', attrs, children: [] };
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
export const child = (e: XmlElement, ns: string, name: string) => elementsOf(e).find((c) => c.ns === ns && c.name === name);
export const textOf = (e: XmlElement): string => e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');

/** `{namespace}name`, the key of a property. */
export const clark = (ns: string, name: string) => `{${ns}}${name}`;
export function parseClark(key: string): { ns: string; name: string } {
  const close = key.indexOf('}');
  return { ns: key.slice(1, close), name: key.slice(close + 1) };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The content of a property element as XML that stands on its own: every element declares its
 * namespace on itself, so the value reads the same wherever it is written back.
 */
export function serializeContent(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? escapeXml(c) : serializeElement(c))).join('');
}

function serializeElement(e: XmlElement): string {
  const attrs = e.attrs
    .map((a, i) => (a.ns ? ` xmlns:a${i}="${escapeXml(a.ns)}" a${i}:${a.name}="${escapeXml(a.value)}"` : ` ${a.name}="${escapeXml(a.value)}"`))
    .join('');
  const open = `<x:${e.name} xmlns:x="${escapeXml(e.ns)}"${attrs}`;
  if (!e.ns) {
    const plain = `<${e.name} xmlns=""${attrs}`;
    return e.children.length ? `${plain}>${serializeContent(e)}</${e.name}>` : `${plain}/>`;
  }
  return e.children.length ? `${open}>${serializeContent(e)}</x:${e.name}>` : `${open}/>`;
}
