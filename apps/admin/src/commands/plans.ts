/** Plan commands: add a plan to the catalogue, list the catalogue. */
import { Subjects } from '@burrow/contracts';
import { type AdminCommand, given, wholeNumber } from '../command-line.js';

export const planCommands: AdminCommand[] = [
  {
    name: 'add-plan',
    summary: 'add a plan to the catalogue every partner sees',
    options: {
      name: { type: 'string', value: 'NAME', required: true, description: 'the plan\'s name ("20 TB")' },
      'storage-bytes': {
        type: 'string',
        value: 'N',
        required: true,
        description: 'its size in bytes (1000000001000000000: unlimited)',
      },
      promo: { type: 'boolean', description: 'a promotion plan' },
    },
    prepare(o) {
      const request = {
        name: given(o, 'name'),
        storage_bytes: wholeNumber(o, 'storage-bytes'),
        promo: o.promo === true,
      };
      return (rpc) => rpc.call(Subjects.accounts.addPlan, request);
    },
  },
  {
    name: 'list-plans',
    summary: 'list the plan catalogue',
    options: {},
    prepare() {
      return (rpc) => rpc.call(Subjects.accounts.listPlans);
    },
  },
];
