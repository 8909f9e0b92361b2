/**
 * Request bodies in codings the gateway does not decode are refused, never stored as they came.
 * Node's HTTP parser removes only the `chunked` framing: a body sent with
 * `Transfer-Encoding: gzip, chunked` would reach an upload still gzipped and be backed up as such,
 * a silent corruption. RFC 9112 §6.1: a server receiving a transfer coding it does not understand
 * answers 501 (Not Implemented), and closes the connection (the rest of the body is not read).
 */
import type { NextFunction, Request, Response } from 'express';
import { closeAfterAnswer } from './lingering-close.js';

export function refuseUnknownTransferCodings(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['transfer-encoding'];
  if (header === undefined) return next();
  const unknown = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'chunked');
  if (unknown.length === 0) return next();
  closeAfterAnswer(req, res);
  res.status(501).json({
    reason: `transfer coding ${unknown.join(', ')} is not supported: send the body as it is, chunked or with a Content-Length`,
  });
}
