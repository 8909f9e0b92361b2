/**
 * Interface A in one bus round trip: a route marked `@AuthenticatedInCall()` does not ask accounts
 * to authenticate the partner before its handler runs (as `PartnerGuard` does elsewhere); its
 * accounts call carries the credentials and the client's address
 * (`PARTNER_CREDENTIALS_FIELD`), and the accounts service authenticates them with the same check,
 * throttle and errors before its handler runs with the authenticated partner's id.
 *
 * How, without changing a handler: `PartnerId()` gives such a handler a stand-in for the partner's
 * id, this request's `PartnerInCall`, which it puts in its payloads as it would the id;
 * `PartnerRpcClient` sends a payload whose `partnerId` is a stand-in to accounts with the
 * credentials in its place. A call to another service (billing, storage) gets the partner's id
 * from a separate authentication first, as with the guard. The stand-in cannot be serialized: a
 * payload holding it reaches no service but through `PartnerRpcClient`. The answers stay those of
 * the guard:
 * - no or malformed Authorization header: 401 at once, as before (the guard still checks that);
 * - a handler that fails before any accounts call (a malformed body, an impossible id) or answers
 *   without one: the partner is authenticated separately first (`PartnerInCallInterceptor`), and
 *   a refusal (401, 429) wins over the handler's own error, as when the guard ran first;
 * - every accounts call answers with the authentication's refusal before anything else.
 * (No AsyncLocalStorage: on Node 20 it turns on promise hooks for every promise of the process,
 * which cost more than the round trip saved.)
 */
import {
  type AuthenticatedPartner,
  type AuthenticatePartnerRequest,
  type JsonText,
  PARTNER_CREDENTIALS_FIELD,
} from '@burrow/contracts';
import { RpcClient } from '@burrow/transport';
import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { from, lastValueFrom, type Observable } from 'rxjs';

export const IN_CALL_KEY = 'burrow:partner-in-call';

/**
 * Who a request's partner is, as `@PartnerId()` gives it to a handler: the authenticated partner's
 * id, or on an `@AuthenticatedInCall()` route this request's `PartnerInCall`, which stands for the id
 * until `PartnerRpcClient` sends it (credentials to accounts, the id to any other service). A handler
 * passes it on as the `partnerId` of its payloads; it is never text to read, compare or log.
 */
export type PartnerIdentity = string | PartnerInCall;

/** A request of the contracts as a handler sends it: its `partnerId` the `PartnerIdentity` the handler was given. */
export type InCall<T extends { partnerId: string }> = Omit<T, 'partnerId'> & { partnerId: PartnerIdentity };

/** One request's partner credentials, until a call has checked them; what `PartnerId()` gives its handler. */
export class PartnerInCall {
  /** an accounts call carried the credentials and was answered (or failed): they were checked */
  carried = false;
  private separate: Promise<string> | null = null;

  constructor(
    readonly credentials: AuthenticatePartnerRequest,
    private readonly authenticate: (credentials: AuthenticatePartnerRequest) => Promise<AuthenticatedPartner>,
  ) {}

  /** The partner's id from a separate authentication (once per request). */
  partnerId(): Promise<string> {
    this.separate ??= this.authenticate(this.credentials).then((partner) => partner.partnerId);
    return this.separate;
  }

  /** Whether a separate authentication was asked for (its id is then used instead of carrying the credentials). */
  get authenticatedSeparately(): boolean {
    return this.separate !== null;
  }

  /** Authenticates separately unless a call already carried the credentials (a refusal throws). */
  async settle(): Promise<void> {
    if (!this.carried) await this.partnerId();
  }

  /** Never serialized: only `PartnerRpcClient` sends what stands for the partner. */
  toJSON(): never {
    throw new Error('a partner authenticated in the call was sent without PartnerRpcClient');
  }

  toString(): never {
    throw new Error('a partner authenticated in the call is not an id: pass it in a payload');
  }
}

/**
 * The route's partner is authenticated by the accounts service with its call (one bus round trip);
 * on a controller, every route of it. The handler must pass `PartnerId()` as the `partnerId` at
 * the top of its payloads, and nothing else with it.
 */
export const AuthenticatedInCall = () =>
  applyDecorators(SetMetadata(IN_CALL_KEY, true), UseInterceptors(PartnerInCallInterceptor));

/** Settles the authentication of a request whose handler failed or answered without carrying the credentials. */
@Injectable()
export class PartnerInCallInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const state = context.switchToHttp().getRequest<{ partnerInCall?: PartnerInCall }>().partnerInCall;
    if (!state) return next.handle();
    return from(this.run(state, next));
  }

  private run(state: PartnerInCall, next: CallHandler): Promise<unknown> {
    return settledAfter(state, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
  }
}

/**
 * Runs the handler of an `@AuthenticatedInCall()` route (its parameters parsed inside `handle`, as
 * Nest parses them inside the interceptor), then settles the authentication: a refusal wins over
 * the handler's own error and over its answer. What `PartnerInCallInterceptor` does, for a fast route too.
 */
export async function settledAfter<T>(state: PartnerInCall, handle: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await handle();
  } catch (error) {
    await state.settle();
    throw error;
  }
  await state.settle();
  return result;
}

/** The gateway's bus client: what `RpcClient` does, plus the partner of an `@AuthenticatedInCall()` route. */
export class PartnerRpcClient extends RpcClient {
  protected override async request<T>(
    subject: string,
    payload: object,
    options: { timeoutMs?: number },
  ): Promise<T | JsonText> {
    const state = (payload as { partnerId?: unknown }).partnerId;
    if (!(state instanceof PartnerInCall)) {
      // only a stand-in carries credentials: a field of that name from anywhere else is dropped
      if (!Object.hasOwn(payload, PARTNER_CREDENTIALS_FIELD)) return super.request<T>(subject, payload, options);
      const { [PARTNER_CREDENTIALS_FIELD]: _dropped, ...rest } = payload as Record<string, unknown>;
      return super.request<T>(subject, rest, options);
    }
    if (!subject.startsWith('accounts.') || state.authenticatedSeparately) {
      return super.request<T>(subject, { ...payload, partnerId: await state.partnerId() }, options);
    }
    const { partnerId: _standIn, ...rest } = payload as Record<string, unknown>;
    try {
      return await super.request<T>(subject, { ...rest, [PARTNER_CREDENTIALS_FIELD]: state.credentials }, options);
    } finally {
      state.carried = true;
    }
  }
}
