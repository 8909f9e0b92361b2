/**
 * The one way to call a service: request/reply with a bounded timeout. Domain errors come back as
 * DomainError; a silent or absent service becomes a 503 DomainError, never a hung request. With a
 * logger, every 503 is logged with its subject and cause, rate-limited (UnavailableLog).
 */
import { DomainError, JsonText, serviceUnavailable } from '@burrow/contracts';
import type { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom, timeout } from 'rxjs';
import { hasDirectRequests, isTimeout } from './direct.js';
import type { TransportLogger } from './transport-logger.js';
import { UnavailableLog } from './unavailable-log.js';

export const DEFAULT_RPC_TIMEOUT_MS = 5000;

export interface RpcClientOptions {
  /** where 503s are logged (at warn, rate-limited); none: not logged */
  log?: TransportLogger;
  /** at most one 503 line per this interval, then a summary of the rest */
  unavailableLogIntervalMs?: number;
}

export class RpcClient {
  private readonly unavailable: UnavailableLog | null;

  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    options: RpcClientOptions = {},
  ) {
    this.unavailable = options.log ? new UnavailableLog(options.log, options.unavailableLogIntervalMs) : null;
  }

  async call<T>(subject: string, payload: object = {}, options: { timeoutMs?: number } = {}): Promise<T> {
    const reply = await this.request<T>(subject, payload, options);
    return reply instanceof JsonText ? (reply.parse() as T) : reply;
  }

  /**
   * The reply as JSON text, for a gateway that writes it to the HTTP response as it is: a handler
   * that returned `JsonText` is relayed without being parsed (any other reply is serialized here).
   */
  async relay<T>(subject: string, payload: object = {}, options: { timeoutMs?: number } = {}): Promise<JsonText<T>> {
    const reply = await this.request<T>(subject, payload, options);
    return reply instanceof JsonText ? (reply as JsonText<T>) : JsonText.of((reply ?? null) as T);
  }

  protected async request<T>(subject: string, payload: object, options: { timeoutMs?: number }): Promise<T | JsonText> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      // the lean bus (direct.ts) when the transport has it; else Nest's Observable
      if (hasDirectRequests(this.client)) return (await this.client.requestDirect(subject, payload, timeoutMs)) as T;
      return await firstValueFrom(this.client.send<T>(subject, payload).pipe(timeout(timeoutMs)), {
        defaultValue: undefined as T,
      });
    } catch (error) {
      const { domain, cause } = this.toDomainError(subject, error, options.timeoutMs ?? this.timeoutMs);
      if (domain.status === 503) this.unavailable?.report(subject, cause);
      throw domain;
    }
  }

  /** The error to throw, and for the log only what caused it (never sent to the client). */
  private toDomainError(subject: string, error: unknown, timeoutMs: number): { domain: DomainError; cause: string } {
    const service = subject.split('.')[0];
    const domain = DomainError.fromWire(error) ?? (error instanceof DomainError ? error : undefined);
    if (domain) return { domain, cause: domain.message };
    if (isTimeout(error)) {
      return {
        domain: serviceUnavailable(`${service} service did not answer in time`),
        cause: `no reply within ${timeoutMs} ms`,
      };
    }
    return { domain: serviceUnavailable(`${service} service is unavailable`), cause: describe(error) };
  }

  /** Fire-and-forget broadcast to every subscriber (no queue group). */
  async emit(subject: string, payload: object): Promise<void> {
    await firstValueFrom(this.client.emit(subject, payload), { defaultValue: undefined });
  }

  close(): Promise<void> | void {
    return this.client.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
