/** The MongoDB adapter's connection URL (mongo.ts): the database it names, each service's own, and the URL as messages may show it. */

/**
 * The database of one service: the database named in the URL, or `burrow`, then `-<service>`
 * (`mongodb://host/acme` -> `acme-accounts`), so deployments and test runs can share a server.
 */
export function mongoDatabaseName(url: string, service: string): string {
  return `${urlDatabase(url) || 'burrow'}-${service}`;
}

/** The database named in the URL ('' for none). */
export function urlDatabase(url: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url);
  return match ? decodeURIComponent(match[1]) : '';
}

/** The URL with its credentials hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
