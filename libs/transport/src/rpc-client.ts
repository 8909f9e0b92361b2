/**
 * The one way to call a service: request/reply with a bounded timeout. Domain errors come back as
 * DomainError; a silent or absent service becomes a 503 DomainError, never a hung request.
 */
import { DomainError, serviceUnavailable } from '@burrow/contracts';
import type { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';

export const DEFAULT_RPC_TIMEOUT_MS = 5000;

export class RpcClient {
  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
  ) {}

  async call<T>(subject: string, payload: object = {}, options: { timeoutMs?: number } = {}): Promise<T> {
    const service = subject.split('.')[0];
    try {
      return await firstValueFrom(
        this.client.send<T>(subject, payload).pipe(timeout(options.timeoutMs ?? this.timeoutMs)),
        { defaultValue: undefined as T },
      );
    } catch (error) {
      const domain = DomainError.fromWire(error);
      if (domain) throw domain;
      if (error instanceof DomainError) throw error;
      if (error instanceof TimeoutError) throw serviceUnavailable(`${service} service did not answer in time`);
      throw serviceUnavailable(`${service} service is unavailable`);
    }
  }

  /** Fire-and-forget broadcast to every subscriber (no queue group). */
  async emit(subject: string, payload: object): Promise<void> {
    await firstValueFrom(this.client.emit(subject, payload), { defaultValue: undefined });
  }

  close(): Promise<void> | void {
    return this.client.close();
  }
}
