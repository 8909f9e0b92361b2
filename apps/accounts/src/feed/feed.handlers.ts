/**
 * The partner's feed over the bus: a page after a position, and (for the gateway's SSE stream) a
 * long poll that waits a little for the partner's next entry when there is none yet, so a live
 * stream costs one bus call per event burst or per wait, not a poll loop.
 */
import { FEED_WAIT_MAX_MS, type FeedPage, type ReadFeedRequest, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { requirePartnerStamp } from '../partners/partner-authentication.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { feedPage } from './feed.projection.js';

@Controller()
export class FeedHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  /**
   * With `stamp` (the SSE stream), refused with 401 once the partner's password is no longer the
   * one the stream was opened with. Checked after the page is read: an entry written after the
   * change (the change's own `partner.password_changed` included) comes after it in the log, so a
   * page that holds one is read after the change, and is never sent.
   */
  @MessagePattern(Subjects.accounts.readFeed)
  async read(@Payload() { partnerId, after, limit, waitMs, stamp }: ReadFeedRequest): Promise<FeedPage> {
    const current = async (page: FeedPage) => {
      if (stamp !== undefined) await requirePartnerStamp(this.ctx, partnerId, stamp);
      return page;
    };
    // listen before reading, so an entry written between the read and the wait is not missed
    const next = waitMs ? this.ctx.signals.nextEntry(partnerId, Math.min(waitMs, FEED_WAIT_MAX_MS)) : null;
    try {
      const page = await feedPage(this.ctx.docs, partnerId, after, limit);
      if (page.events.length || !next) return await current(page);
      await current(page);
      await next.promise;
      return await current(await feedPage(this.ctx.docs, partnerId, after, limit));
    } finally {
      next?.cancel();
    }
  }
}
