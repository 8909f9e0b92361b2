/**
 * Request bodies for interface A: JSON whatever the content type (clients send application/json,
 * text/javascript, or form content types holding JSON), bounded in size. The body is read as a
 * stream and refused with 413 as soon as it passes the limit. Its shape is bounded too (nesting
 * depth, number of values), checked on the text before parsing: whatever the gateway accepts can
 * cross the bus and be validated without recursing thousands of levels deep.
 */
import { badRequest, payloadTooLarge } from '@burrow/contracts';
import { closeAfterAnswer } from './lingering-close.js';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { fieldsHoldingNul } from './nul.js';

export const JSON_BODY_LIMIT = 1024 * 1024;
/** No request body of Burrow nests deeper than a handful of levels. */
export const JSON_MAX_DEPTH = 32;
/** Values (scalars, arrays, objects) in one body. */
export const JSON_MAX_VALUES = 50_000;

/**
 * Nesting depth and an upper bound of the number of values of a JSON text, in one pass that skips
 * string contents; no recursion, so any input is safe to measure.
 */
export function jsonShape(text: string): { depth: number; values: number } {
  let depth = 0;
  let maxDepth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      values++;
      if (depth > maxDepth) maxDepth = depth;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
    else if (c === 44 /* , */) values++;
  }
  return { depth: maxDepth, values };
}

/** The whole request body, refused with 413 as soon as it passes `limit` (small bodies only: never a file). */
export async function readBoundedBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    // the rest is not read: the connection closes once the 413 is out (lingering, so it gets through)
    if (req.res) closeAfterAnswer(req, req.res);
    throw payloadTooLarge(`request body over ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // leaving the loop early must not destroy the request (and its socket) before the 413 is sent
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      if (req.res) closeAfterAnswer(req, req.res);
      throw payloadTooLarge(`request body over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readJsonBody(req: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  // Bounded by `limit`: a small JSON document, not a file.
  const text = (await readBoundedBody(req, limit)).toString('utf8').trim();
  if (text === '') return undefined;
  const shape = jsonShape(text);
  if (shape.depth > JSON_MAX_DEPTH) throw badRequest(`request body nests deeper than ${JSON_MAX_DEPTH} levels`);
  if (shape.values > JSON_MAX_VALUES) throw badRequest(`request body holds more than ${JSON_MAX_VALUES} values`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  // (a bare string body, a new password, is checked by its own endpoint, which names the field)
  const withNul = fieldsHoldingNul(body);
  if (withNul.length) throw badRequest('NUL characters are not allowed', withNul);
  return body;
}

/** The parsed JSON body (`undefined` when empty). */
export const JsonBody = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  readJsonBody(ctx.switchToHttp().getRequest<Request>()),
);
