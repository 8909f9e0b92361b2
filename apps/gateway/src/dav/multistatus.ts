/**
 * 207 Multi-Status bodies (RFC 4918 §13), written as they are made: a PROPFIND of a big folder
 * streams its members page by page with back-pressure, never building the whole document.
 */
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { drained } from '../transfers/streams.js';
import type { PropertyNames } from './properties.js';
import { escapeXml } from './xml.js';

export const statusLine = (status: number) => `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`;

export function propstatXml(props: string[], status: number, error?: string): string {
  return `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>${statusLine(status)}</D:status>${error ? `<D:error>${error}</D:error>` : ''}</D:propstat>`;
}

export function responseXml(href: string, body: string): string {
  return `<D:response><D:href>${escapeXml(href)}</D:href>${body}</D:response>`;
}

export const statusXml = (status: number) => `<D:status>${statusLine(status)}</D:status>`;

export class MultistatusWriter {
  constructor(
    private readonly res: Response,
    /** the property names' namespaces, declared on the root */
    private readonly names?: PropertyNames,
  ) {}

  start(): void {
    this.res.status(207).setHeader('Content-Type', 'application/xml; charset=utf-8');
    this.res.write(
      `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:"${this.names?.declarations() ?? ''}>`,
    );
  }

  async write(xml: string): Promise<void> {
    if (!this.res.write(xml)) await drained(this.res);
  }

  end(): void {
    this.res.end('</D:multistatus>\n');
  }
}

/** A whole small multistatus (PROPPATCH, a MOVE's failures); `names` declares its property names' namespaces. */
export function sendMultistatus(res: Response, responses: string[], names?: PropertyNames): void {
  res
    .status(207)
    .setHeader('Content-Type', 'application/xml; charset=utf-8')
    .end(
      `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:"${names?.declarations() ?? ''}>${responses.join('')}</D:multistatus>\n`,
    );
}

/** An error body with a precondition or postcondition element (RFC 4918 §16). */
export function sendError(res: Response, status: number, condition: string): void {
  res
    .status(status)
    .setHeader('Content-Type', 'application/xml; charset=utf-8')
    .end(`<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:${condition}/></D:error>\n`);
}
