/**
 * Creating a partner (operator): reserve the login name, then `PartnerCreated` expecting no
 * stream (the commit point; recovery claims it with `PartnerCreationAbandoned`), or free the name.
 */
import { type PartnerCreated, type PartnerCreationAbandoned, Streams } from '@burrow/contracts';
import {
  claimNewStream,
  defineWorkflow,
  handleCommand,
  nameKey,
  releaseName,
  reserveName,
} from '@burrow/eventsourcing';
import type { AccountsContext } from '../context.js';
import { partnerDecider } from './partner.js';

export interface CreatePartnerProcess {
  partnerId: string;
  username: string;
}

export const partnerNameReservation = (username: string) => Streams.reservation('partnername', nameKey(username));

export const createPartnerProcess = (ctx: AccountsContext) =>
  defineWorkflow<CreatePartnerProcess, { partner: PartnerCreated['data'] }>({
    kind: 'CreatePartner',
    steps: [
      {
        name: 'reserve-name',
        run: ({ data }) => reserveName(ctx.store, partnerNameReservation(data.username), data.partnerId, 'username'),
        undo: (data) => releaseName(ctx.store, partnerNameReservation(data.username), data.partnerId),
      },
    ],
    async commit({ id, data, input }) {
      const command = { type: 'CreatePartner' as const, data: input.partner };
      return (
        await handleCommand(ctx.store, Streams.partner(data.partnerId), partnerDecider, command, {
          metadata: { processId: id },
        })
      ).position;
    },
    settle(data) {
      const marker: PartnerCreationAbandoned = { type: 'PartnerCreationAbandoned', data: { at: ctx.clock.now() } };
      return claimNewStream(ctx.store, Streams.partner(data.partnerId), marker, 'PartnerCreated');
    },
  });
