/** The reply to a create on a collection route: 201, `Location: <collection>/<id>` on the mount that was called, the record. */
import type { Request, Response } from 'express';

export function replyCreated(req: Request, res: Response, id: number | string, record: unknown): void {
  // no trailing slash and no query, whichever form of the collection path was called
  const collection = req.baseUrl + req.path.replace(/\/+$/, '');
  res.status(201).location(`${collection}/${id}`).json(record);
}
