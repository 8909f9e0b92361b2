/**
 * Request bodies for interface A: JSON whatever the content type (clients send application/json,
 * text/javascript, or form content types holding JSON), bounded in size. The body is read as a
 * stream and refused with 413 as soon as it passes the limit.
 */
import { badRequest, payloadTooLarge } from '@burrow/contracts';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

export const JSON_BODY_LIMIT = 1024 * 1024;

export async function readJsonBody(req: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw payloadTooLarge(`request body over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw payloadTooLarge(`request body over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  // Bounded by `limit` above: a small JSON document, not a file.
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

/** The parsed JSON body (`undefined` when empty). */
export const JsonBody = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  readJsonBody(ctx.switchToHttp().getRequest<Request>()),
);
