/**
 * Creating a partner (operator): reserve the login name, then `PartnerCreated` expecting no
 * stream (the commit point; recovery claims it with `PartnerCreationAbandoned`), or free the name.
 */
import { type PartnerCreationAbandoned, Streams } from '@burrow/contracts';
import { claimNewStream, nameKey, type ProcessDefinition, releaseName } from '@burrow/eventsourcing';
import type { AccountsContext } from '../shared/context.js';

export interface CreatePartnerProcess {
  partnerId: string;
  username: string;
}

export const partnerNameReservation = (username: string) => Streams.reservation('partnername', nameKey(username));

export const createPartnerProcess = (ctx: AccountsContext): ProcessDefinition<CreatePartnerProcess> => ({
  kind: 'CreatePartner',
  settle(data) {
    const marker: PartnerCreationAbandoned = { type: 'PartnerCreationAbandoned', data: { at: ctx.clock.now() } };
    return claimNewStream(ctx.store, Streams.partner(data.partnerId), marker, 'PartnerCreated');
  },
  async complete() {},
  async compensate(data) {
    await releaseName(ctx.store, partnerNameReservation(data.username), data.partnerId);
  },
});
