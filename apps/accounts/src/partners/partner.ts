/** The partner aggregate (stream `partner-<id>`): identity, API password, limits, features, settings. */
import {
  badRequest,
  type Command,
  type Decider,
  type PartnerCreated,
  type PartnerEvent,
  type PartnerFeatures,
  type PartnerSettings,
  serviceUnavailable,
} from '@burrow/contracts';

export const DEFAULT_FEATURES: PartnerFeatures = {
  netkes: false,
  ldap: false,
  group_permissions: false,
  signup_restrictions: false,
  email_as_username: false,
};

export type CreatePartner = Command<'CreatePartner', { data: PartnerCreated['data'] }>;
export type ChangePartnerPassword = Command<'ChangePartnerPassword', { passwordHash: string; at: number }>;
export type ChangePartnerSettings = Command<'ChangePartnerSettings', { changes: Partial<PartnerSettings>; at: number }>;
export type ChangePartnerLimits = Command<
  'ChangePartnerLimits',
  { bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number }
>;
export type PartnerCommand = CreatePartner | ChangePartnerPassword | ChangePartnerSettings | ChangePartnerLimits;

export interface PartnerState {
  exists: boolean;
  abandoned: boolean;
}

export const partnerDecider: Decider<PartnerState, PartnerCommand, PartnerEvent> = {
  initialState: { exists: false, abandoned: false },
  decide(command, state) {
    if (command.type === 'CreatePartner') {
      if (state.abandoned) throw serviceUnavailable('this create was abandoned by crash recovery; retry');
      if (state.exists) throw badRequest('partner exists');
      return [{ type: 'PartnerCreated', data: command.data }];
    }
    if (!state.exists) throw badRequest('no such partner');
    switch (command.type) {
      case 'ChangePartnerPassword':
        return [{ type: 'PartnerPasswordChanged', data: { passwordHash: command.passwordHash, at: command.at } }];
      case 'ChangePartnerSettings':
        return Object.keys(command.changes).length
          ? [{ type: 'PartnerSettingsChanged', data: { changes: command.changes, at: command.at } }]
          : [];
      case 'ChangePartnerLimits': {
        const data: { bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number } = {
          at: command.at,
        };
        if (command.bytes_available !== undefined) data.bytes_available = command.bytes_available;
        if (command.features !== undefined) data.features = command.features;
        return [{ type: 'PartnerLimitsChanged', data }];
      }
    }
  },
  evolve(state, event) {
    if (event.type === 'PartnerCreated') return { ...state, exists: true };
    if (event.type === 'PartnerCreationAbandoned') return { ...state, abandoned: true };
    return state;
  },
};
