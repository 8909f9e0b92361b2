/**
 * The operator releases a reservation so that its name can be used again. Only a stuck one,
 * unless forced: releasing a live name lets a second user, partner or group take it; releasing an
 * in-flight one lets a second one take it before the write finishes.
 */
import { conflict, notFound, type ReleasedReservation, type ReservationKind, Streams } from '@burrow/contracts';
import { nameKey, releaseName, reservationHolder } from '@burrow/eventsourcing';
import { partnersCollection } from '../partners/partners.projection.js';
import type { AccountsContext } from '../context.js';
import { reservationStatus } from './reservation-status.js';

export interface ReleaseReservation {
  kind: ReservationKind;
  name: string;
  /** groupname only: the partner's username */
  partner?: string;
  force: boolean;
}

export async function releaseReservation(
  ctx: AccountsContext,
  request: ReleaseReservation,
): Promise<ReleasedReservation> {
  let partnerId: string | undefined;
  if (request.kind === 'groupname') {
    const partner = await partnersCollection(ctx.docs).findOne({ username: request.partner });
    if (!partner) throw notFound(`no partner ${request.partner}`);
    partnerId = partner._id;
  }
  const key = nameKey(request.name);
  const stream = Streams.reservation(request.kind, partnerId ? `${partnerId}-${key}` : key);
  // The holder is read from the event store before the read models catch up: a write that took
  // the name since is then visible as pending, so it is never mistaken for a stuck one.
  const owner = await reservationHolder(ctx.store, stream);
  if (!owner) throw notFound(`${request.kind} "${request.name}" is not reserved`);
  await ctx.runner.catchUp();
  const { status, reason } = await reservationStatus(ctx, {
    kind: request.kind,
    name: decodeURIComponent(key),
    partnerId,
    owner,
  });
  if (status !== 'stuck' && !request.force) {
    const state = status === 'live' ? 'live' : 'in flight';
    throw conflict(
      `${request.kind} "${request.name}" is ${state} (${reason}); releasing it could let the name be taken twice. Release it anyway with --force`,
      ['name'],
    );
  }
  // A no-op if someone else holds it by now (releaseName checks the owner).
  await releaseName(ctx.store, stream, owner);
  if ((await reservationHolder(ctx.store, stream)) === owner)
    throw conflict(`${request.kind} "${request.name}" could not be released; try again`, ['name']);
  ctx.log.warn(
    {
      reservation: { kind: request.kind, name: request.name, partnerId },
      stream,
      owner,
      status,
      reason,
      forced: request.force,
    },
    'operator released a name reservation',
  );
  await ctx.runner.catchUp();
  const released: ReleasedReservation = {
    kind: request.kind,
    name: decodeURIComponent(key),
    owner,
    status,
    forced: request.force,
  };
  if (partnerId) released.partner_id = partnerId;
  return released;
}
