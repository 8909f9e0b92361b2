/**
 * The webhook endpoint aggregate (stream `webhook-<endpointId>`): registration, changes, secret
 * rotation, disabling (by the partner, or by the delivery worker after days of failures) and
 * re-enabling, deletion, and the partner's redelivery requests. One command per intent.
 */
import {
  type Command,
  type Decider,
  notFound,
  type SecretRef,
  type WebhookEndpointEvent,
  type WebhookEndpointRegistered,
} from '@burrow/contracts';

export interface EndpointState {
  exists: boolean;
  deleted: boolean;
  partnerId: string;
  enabled: boolean;
  url: string;
  event_types: string[];
  description: string;
}

export type RegisterEndpoint = Command<'RegisterEndpoint', { data: WebhookEndpointRegistered['data'] }>;
export type ChangeEndpoint = Command<
  'ChangeEndpoint',
  { url?: string; event_types?: string[]; description?: string; at: number }
>;
export type RotateSecret = Command<'RotateSecret', { secret: SecretRef; previousExpiresAt: number; at: number }>;
export type DisableEndpoint = Command<'DisableEndpoint', { reason: string; by: 'partner' | 'system'; at: number }>;
export type EnableEndpoint = Command<'EnableEndpoint', { at: number }>;
export type DeleteEndpoint = Command<'DeleteEndpoint', { at: number }>;
export type RequestRedelivery = Command<
  'RequestRedelivery',
  { deliveryId: string; of: string; position: number; at: number }
>;
export type EndpointCommand =
  | RegisterEndpoint
  | ChangeEndpoint
  | RotateSecret
  | DisableEndpoint
  | EnableEndpoint
  | DeleteEndpoint
  | RequestRedelivery;

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export const endpointDecider: Decider<EndpointState, EndpointCommand, WebhookEndpointEvent> = {
  initialState: {
    exists: false,
    deleted: false,
    partnerId: '',
    enabled: false,
    url: '',
    event_types: [],
    description: '',
  },
  decide(command, state) {
    if (command.type === 'RegisterEndpoint')
      return state.exists ? [] : [{ type: 'WebhookEndpointRegistered', data: command.data }];
    if (!state.exists || state.deleted) throw notFound('no such webhook');
    switch (command.type) {
      case 'ChangeEndpoint': {
        const data: { url?: string; event_types?: string[]; description?: string; at: number } = { at: command.at };
        if (command.url !== undefined && command.url !== state.url) data.url = command.url;
        if (command.event_types !== undefined && !sameList(command.event_types, state.event_types))
          data.event_types = command.event_types;
        if (command.description !== undefined && command.description !== state.description)
          data.description = command.description;
        return Object.keys(data).length > 1 ? [{ type: 'WebhookEndpointChanged', data }] : [];
      }
      case 'RotateSecret':
        return [
          {
            type: 'WebhookSecretRotated',
            data: { secret: command.secret, previousExpiresAt: command.previousExpiresAt, at: command.at },
          },
        ];
      case 'DisableEndpoint':
        return state.enabled
          ? [{ type: 'WebhookEndpointDisabled', data: { reason: command.reason, by: command.by, at: command.at } }]
          : [];
      case 'EnableEndpoint':
        return state.enabled ? [] : [{ type: 'WebhookEndpointEnabled', data: { at: command.at } }];
      case 'DeleteEndpoint':
        return [{ type: 'WebhookEndpointDeleted', data: { at: command.at } }];
      case 'RequestRedelivery':
        return [
          {
            type: 'WebhookRedeliveryRequested',
            data: { deliveryId: command.deliveryId, of: command.of, position: command.position, at: command.at },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointRegistered': {
        const { partnerId, url, event_types, description } = event.data;
        return { ...state, exists: true, enabled: true, partnerId, url, event_types, description };
      }
      case 'WebhookEndpointChanged': {
        const { at: _at, ...changes } = event.data;
        return { ...state, ...changes };
      }
      case 'WebhookEndpointDisabled':
        return { ...state, enabled: false };
      case 'WebhookEndpointEnabled':
        return { ...state, enabled: true };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
};
