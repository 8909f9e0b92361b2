/**
 * Operator-only bus handlers (admin CLI; the gateway never routes here): name reservations (list
 * them with their status, release a stuck one) and unfinished multi-step writes (list them, run
 * recovery now). Requests are parsed here, where they enter Burrow.
 */
import {
  ListPendingWritesRequest,
  ListReservationsRequest,
  parseRequest,
  type PendingWritesPage,
  RecoverWritesRequest,
  type RecoverWritesReport,
  type ReleasedReservation,
  ReleaseReservationRequest,
  type ReservationPage,
  Subjects,
} from '@burrow/contracts';
import type { ProcessRecovery } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { releaseReservation } from './release-reservation.js';
import { listReservations } from './reservation-status.js';

/** The service's recovery of multi-step writes (the one accounts.service.ts runs on a timer). */
export const WRITE_RECOVERY = Symbol('WRITE_RECOVERY');

@Controller()
export class OperationsHandlers {
  constructor(
    @Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext,
    @Inject(WRITE_RECOVERY) private readonly recovery: ProcessRecovery,
  ) {}

  @MessagePattern(Subjects.accounts.listReservations)
  async listReservations(@Payload() body: unknown): Promise<ReservationPage> {
    const request = parseRequest(ListReservationsRequest, body, { what: 'request' });
    await this.ctx.runner.catchUp();
    return listReservations(this.ctx, request);
  }

  @MessagePattern(Subjects.accounts.releaseReservation)
  async releaseReservation(@Payload() body: unknown): Promise<ReleasedReservation> {
    return releaseReservation(this.ctx, parseRequest(ReleaseReservationRequest, body, { what: 'request' }));
  }

  @MessagePattern(Subjects.accounts.listPendingWrites)
  async listPendingWrites(@Payload() body: unknown): Promise<PendingWritesPage> {
    const { limit } = parseRequest(ListPendingWritesRequest, body, { what: 'request' });
    await this.ctx.runner.catchUp();
    const now = this.recovery.now();
    const pending = await this.recovery.pending(limit + 1);
    return {
      grace_seconds: this.recovery.graceSeconds,
      pending: pending.slice(0, limit).map((p) => ({
        id: p._id,
        kind: p.kind,
        started_at: new Date(p.startedAt * 1000).toISOString(),
        age_seconds: now - p.startedAt,
        data: p.data,
        due: now - p.startedAt >= this.recovery.graceSeconds,
      })),
      more: pending.length > limit,
    };
  }

  @MessagePattern(Subjects.accounts.recoverWrites)
  async recoverWrites(@Payload() body: unknown): Promise<RecoverWritesReport> {
    const request = parseRequest(RecoverWritesRequest, body, { what: 'request' });
    const grace = request.grace_seconds ?? this.recovery.graceSeconds;
    await this.ctx.runner.catchUp();
    const report = await this.recovery.run(grace);
    this.ctx.log.warn({ graceSeconds: grace, ...report }, 'operator ran recovery of unfinished multi-step writes');
    // what recovery appended is in the read models before the operator looks again
    await this.ctx.runner.catchUp();
    return { grace_seconds: grace, ...report };
  }
}
