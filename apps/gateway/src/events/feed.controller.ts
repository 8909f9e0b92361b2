/**
 * The partner's event feed: `GET /events/?after=&limit=` pages it as JSON; the same URL with
 * `Accept: text/event-stream` streams it live as Server-Sent Events from `after`, or from the
 * `Last-Event-ID` a reconnecting client sends (which wins: EventSource reconnects to the same URL).
 */
import { badRequest, FEED_PAGE_DEFAULT, type FeedPage, Subjects, type z } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { INTERFACE_A_MOUNTS } from '../partner-access/interface-a.js';
import { PartnerGuard, PartnerId, partnerStamp } from '../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../partner-access/partner-in-call.js';
import { Query } from '../http/request.js';
import { GATEWAY_LOGGER, RPC } from '../http/tokens.js';
import { Route } from '../http/route.js';
import { EVENTS_OPTIONS, type EventsOptions } from './events.options.js';
import { type StreamLog, streamFeed } from './sse.js';
import { FEED_ROUTES } from './events.routes.js';

/** The bus call may take the long poll's wait plus the usual answer time. */
const ANSWER_MS = 5000;

/** `Last-Event-ID`, when the client sent one: a position. */
function lastEventId(req: Request): number | undefined {
  const raw = req.get('last-event-id');
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d{1,16}$/.test(raw.trim())) throw badRequest('Last-Event-ID must be a feed position', ['Last-Event-ID']);
  return Number(raw.trim());
}

@Controller(INTERFACE_A_MOUNTS)
@UseGuards(PartnerGuard)
export class FeedController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_LOGGER) private readonly log: StreamLog,
    @Inject(EVENTS_OPTIONS) private readonly options: EventsOptions,
  ) {}

  @Route(FEED_ROUTES.feed)
  async feed(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(FEED_ROUTES.feed.query) query: z.output<typeof FEED_ROUTES.feed.query>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const after = lastEventId(req) ?? query.after ?? 0;
    if (req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream') {
      // every poll carries the stamp of the credentials the stream was opened with: accounts
      // refuses it (401, the stream ends) once the partner's password has changed
      const stamp = partnerStamp(req);
      const fetch = (from: number, limit: number, waitMs: number) =>
        this.rpc.call<FeedPage>(
          Subjects.accounts.readFeed,
          { partnerId, after: from, limit, waitMs, stamp },
          { timeoutMs: waitMs + ANSWER_MS },
        );
      await streamFeed(
        res,
        after,
        fetch,
        { heartbeatMs: this.options.heartbeatMs, maxMs: this.options.maxStreamMs },
        this.log,
      );
      return;
    }
    const page = await this.rpc.call<FeedPage>(Subjects.accounts.readFeed, {
      partnerId,
      after,
      limit: query.limit ?? FEED_PAGE_DEFAULT,
    });
    res.json(page);
  }
}
