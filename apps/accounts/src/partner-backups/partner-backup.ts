/**
 * A partner's appliance backups (stream `partnerbackup-<partnerId>`): each store is a version
 * referring to a blob. Storing the very data of the latest version again adds nothing (an
 * appliance retrying a POST whose reply it lost).
 */
import {
  badRequest,
  type Command,
  type Decider,
  type PartnerBackupEvent,
  type PartnerBackupStored,
} from '@burrow/contracts';

const BLOB_KEY = /^[0-9a-f]{64}$/;

export interface PartnerBackupState {
  latest: PartnerBackupStored['data'] | null;
}

export type StorePartnerBackup = Command<'StorePartnerBackup', { blob: string; size: number; at: number }>;

export const partnerBackupDecider: Decider<PartnerBackupState, StorePartnerBackup, PartnerBackupEvent> = {
  initialState: { latest: null },
  decide(command, state) {
    // the blob store names a blob by the SHA-256 of its content: the data text's hash
    if (!BLOB_KEY.test(command.blob)) throw badRequest('blob must be a blob key (lowercase hex SHA-256)', ['blob']);
    if (!Number.isInteger(command.size) || command.size < 1)
      throw badRequest('size must be a positive integer', ['size']);
    if (state.latest?.sha256 === command.blob) return [];
    return [
      {
        type: 'PartnerBackupStored',
        data: { blob: command.blob, sha256: command.blob, size: command.size, stored_at: command.at },
      },
    ];
  },
  evolve(state, event) {
    return event.type === 'PartnerBackupStored' ? { latest: event.data } : state;
  },
};
