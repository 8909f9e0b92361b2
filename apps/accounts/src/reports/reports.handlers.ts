/** Partner-wide reports: the brand's share list and the client revisions of its devices. */
import {
  type BrandSharesRequest,
  type BrandShareEntry,
  type ClientRevisionCount,
  type ClientRevisionsRequest,
  MAX_PAGE,
  Subjects,
} from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { devicesCollection } from '../storage-usage/storage-usage.projection.js';
import { usersCollection } from '../read-models/users.projection.js';

const DEVICE_PAGE = 1000;
const DAY = 86_400;

@Controller()
export class ReportsHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  /** Users of the brand that have shares, each with its rooms; limit/offset count users. */
  @MessagePattern(Subjects.accounts.brandShares)
  async shares(@Payload() { partnerId, limit, offset }: BrandSharesRequest): Promise<BrandShareEntry[]> {
    if (limit === 0) return [];
    const users = await usersCollection(this.ctx.docs).find(
      { partnerId, share_count: { $gt: 0 } },
      { sort: { username: 1 }, skip: offset ?? 0, limit: Math.min(limit ?? MAX_PAGE, MAX_PAGE) },
    );
    return users.map((u) => ({ username: u.username, name: u.name, email: u.email, shares: u.share_rooms }));
  }

  @MessagePattern(Subjects.accounts.clientRevisions)
  async clientRevisions(@Payload() req: ClientRevisionsRequest): Promise<ClientRevisionCount[]> {
    const filter: Record<string, unknown> = { partnerId: req.partnerId };
    const revision: Record<string, number> = { $gte: req.min_revision };
    if (req.max_revision >= 0) revision.$lte = req.max_revision;
    filter.client_revision = revision;
    if (req.max_days_since_login >= 0)
      filter.lastlogin = { $gte: this.ctx.clock.now() - req.max_days_since_login * DAY };
    const counts = new Map<number, number>();
    for (let skip = 0; ; skip += DEVICE_PAGE) {
      const page = await devicesCollection(this.ctx.docs).find(filter, { sort: { _id: 1 }, skip, limit: DEVICE_PAGE });
      for (const d of page) counts.set(d.client_revision, (counts.get(d.client_revision) ?? 0) + 1);
      if (page.length < DEVICE_PAGE) break;
    }
    return [...counts].sort((a, b) => a[0] - b[0]).map(([revision, count]) => ({ revision, count }));
  }
}
