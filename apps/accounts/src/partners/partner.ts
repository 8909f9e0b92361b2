/** The partner aggregate (stream `partner-<id>`): identity, API password, limits, features, settings. */
import { badRequest, type Decider, type PartnerFeatures, type PartnerSettings } from '@burrow/contracts';

export const DEFAULT_FEATURES: PartnerFeatures = {
  netkes: false,
  ldap: false,
  group_permissions: false,
  signup_restrictions: false,
  email_as_username: false,
};

export interface PartnerCreatedData {
  partnerId: string;
  username: string;
  company_name: string;
  brand_identifier: string;
  passwordHash: string;
  bytes_available: number | null;
  features: PartnerFeatures;
  created_at: number;
}

export type PartnerEvent =
  | { type: 'PartnerCreated'; data: PartnerCreatedData }
  | { type: 'PartnerPasswordChanged'; data: { passwordHash: string; at: number } }
  | { type: 'PartnerSettingsChanged'; data: { changes: Partial<PartnerSettings>; at: number } }
  | { type: 'PartnerLimitsChanged'; data: { bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number } };

export type PartnerCommand =
  | { type: 'CreatePartner'; data: PartnerCreatedData }
  | { type: 'ChangePartnerPassword'; passwordHash: string; at: number }
  | { type: 'ChangePartnerSettings'; changes: Partial<PartnerSettings>; at: number }
  | { type: 'ChangePartnerLimits'; bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number };

export interface PartnerState {
  exists: boolean;
}

export const partnerDecider: Decider<PartnerState, PartnerCommand, PartnerEvent> = {
  initialState: { exists: false },
  decide(command, state) {
    if (command.type === 'CreatePartner') {
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
        const data: { bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number } = { at: command.at };
        if (command.bytes_available !== undefined) data.bytes_available = command.bytes_available;
        if (command.features !== undefined) data.features = command.features;
        return [{ type: 'PartnerLimitsChanged', data }];
      }
    }
  },
  evolve(state, event) {
    return event.type === 'PartnerCreated' ? { exists: true } : state;
  },
};

export const PASSWORD_MIN_LENGTH = 8;

export function validateNewPassword(value: unknown, field = 'password'): string {
  if (typeof value !== 'string' || value.length < PASSWORD_MIN_LENGTH || value.length > 1024) {
    throw badRequest(`${field} must be a string of ${PASSWORD_MIN_LENGTH} to 1024 characters`, [field]);
  }
  if (value.includes('\0')) throw badRequest(`${field} must not contain NUL characters`, [field]);
  return value;
}
