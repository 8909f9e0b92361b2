/**
 * Name reservations (usernames, emails, group and partner names): list them with whether each is
 * live, in flight or stuck, and release a stuck one so that its name can be used again.
 */
import { RESERVATION_KINDS, Subjects } from '@burrow/contracts';
import { type AdminCommand, given, optional, UsageError, wholeNumber } from '../command-line.js';

export const reservationCommands: AdminCommand[] = [
  {
    name: 'list-reservations',
    summary: 'list reserved names: live, in flight (a write is finishing) or stuck',
    details:
      'live: an existing user, partner or group has the name. in_flight: an unfinished multi-step\n' +
      'write owns it; recovery finishes or undoes it. stuck: neither; only release-reservation frees it.\n' +
      'Prints {"reservations": [...], "next": CURSOR|null}; pass --after CURSOR for the next page.',
    options: {
      stuck: { type: 'boolean', description: 'only the stuck ones' },
      kind: { type: 'string', choices: RESERVATION_KINDS, description: 'only this kind' },
      limit: { type: 'string', value: 'N', description: 'at most N (default 100, at most 1000)' },
      after: {
        type: 'string',
        value: 'CURSOR',
        description: 'continue after this cursor (the previous page\'s "next")',
      },
    },
    prepare(o) {
      const request = {
        stuck: o.stuck === true,
        kind: optional(o, 'kind'),
        limit: wholeNumber(o, 'limit'),
        after: optional(o, 'after'),
      };
      return (rpc) => rpc.call(Subjects.accounts.listReservations, request);
    },
  },
  {
    name: 'release-reservation',
    summary: 'release a stuck reservation so that its name can be used again',
    details:
      'Refuses a live or in-flight reservation: releasing it could let two users, partners or groups\n' +
      'have one name. --force releases it anyway (only when you know why it is not stuck).',
    options: {
      kind: { type: 'string', choices: RESERVATION_KINDS, required: true, description: 'what the name is' },
      name: { type: 'string', value: 'NAME', required: true, description: 'the name (any case)' },
      partner: {
        type: 'string',
        value: 'USERNAME',
        description: 'groupname only (required there): the partner the group belongs to',
      },
      force: { type: 'boolean', description: 'release even a live or in-flight reservation' },
    },
    prepare(o) {
      const kind = given(o, 'kind');
      const partner = optional(o, 'partner');
      if (kind === 'groupname' && partner === undefined)
        throw new UsageError('--partner is required with --kind groupname (group names are per partner)');
      if (kind !== 'groupname' && partner !== undefined)
        throw new UsageError('--partner goes with --kind groupname only');
      const request = { kind, name: given(o, 'name'), partner, force: o.force === true };
      return (rpc) => rpc.call(Subjects.accounts.releaseReservation, request);
    },
  },
];
