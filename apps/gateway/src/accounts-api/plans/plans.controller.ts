/** `GET /ping` (the clients' credential check) and `GET /plans`. */
import { type Plan, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Header, Inject, UseGuards } from '@nestjs/common';
import { PartnerGuard } from '../../partner-access/partner.guard.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { PLAN_ROUTES } from './plans.routes.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class PlansController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Credential check used by clients: 200 "pong" only with valid partner credentials. */
  @Route(PLAN_ROUTES.ping)
  @Header('Content-Type', 'application/json')
  ping(): string {
    return JSON.stringify('pong');
  }

  @Route(PLAN_ROUTES.plans)
  plans(): Promise<Plan[]> {
    return this.rpc.call(Subjects.accounts.listPlans);
  }
}
