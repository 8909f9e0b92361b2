/**
 * Unfinished multi-step writes of the accounts service: list them, and run recovery now instead of
 * waiting for its next round (docs/operations.md, "Crash mid-write").
 */
import { Subjects } from '@burrow/contracts';
import { type AdminCommand, wholeNumber } from '../command-line.js';

export const pendingWriteCommands: AdminCommand[] = [
  {
    name: 'list-pending-writes',
    summary: "list the accounts service's unfinished multi-step writes, oldest first",
    details: '"due": older than the grace period (BURROW_RECOVERY_GRACE_SECONDS), so the next recovery settles it.',
    options: { limit: { type: 'string', value: 'N', description: 'at most N (default 100, at most 1000)' } },
    prepare(o) {
      const request = { limit: wholeNumber(o, 'limit') };
      return (rpc) => rpc.call(Subjects.accounts.listPendingWrites, request);
    },
  },
  {
    name: 'recover-writes',
    summary: 'finish or undo unfinished multi-step writes now; reports what it did',
    details:
      'Settles every write unfinished for at least the grace period: completes it if its commit point\n' +
      'happened, undoes its steps otherwise. A write younger than the grace may still be running: only\n' +
      'lower --grace-seconds below the longest request time when nothing is writing.',
    options: {
      'grace-seconds': {
        type: 'string',
        value: 'N',
        description: 'settle writes at least N seconds old (default: BURROW_RECOVERY_GRACE_SECONDS)',
      },
    },
    prepare(o) {
      const request = { grace_seconds: wholeNumber(o, 'grace-seconds') };
      return (rpc) => rpc.call(Subjects.accounts.recoverWrites, request);
    },
  },
];
