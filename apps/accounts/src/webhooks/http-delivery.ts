/**
 * One POST of a delivery to its endpoint, with undici (keep-alive connection pools per origin, a
 * `lookup` hook on every new socket, no redirects followed): the scheme is checked against the
 * operator's setting, a literal IP host against the address policy, and a host name at connect
 * time by `guardedLookup`, so the socket goes to an address that was checked. Anything but a 2xx
 * within the timeout is a failure with a short reason (never the response body, which the receiver
 * controls).
 */
// undici is loaded with the first delivery, not by every start of the accounts service
import type { Agent, request as undiciRequest } from 'undici';
import { guardedLookup, literalHostRefusal, type Resolver, systemResolver } from './address-policy.js';

export interface DeliveryResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
}

export interface HttpDeliveryOptions {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
  resolver?: Resolver;
}

/** Response bodies are read and thrown away, up to this much (then the connection is dropped). */
const DISCARD_LIMIT = 64 * 1024;

export class HttpDelivery {
  private undici?: Promise<{ agent: Agent; request: typeof undiciRequest }>;

  constructor(private readonly options: HttpDeliveryOptions) {}

  private client() {
    const { options } = this;
    this.undici ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connect: {
          lookup: guardedLookup(options.allowPrivate, options.resolver ?? systemResolver),
          timeout: options.timeoutMs,
        },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      }),
    }));
    return this.undici;
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<DeliveryResult> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, status_code: null, error: 'not a valid URL' };
    }
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && this.options.allowHttp)) {
      return { ok: false, status_code: null, error: `${target.protocol} URLs are not allowed` };
    }
    const refusal = literalHostRefusal(target.hostname, this.options.allowPrivate);
    if (refusal) return { ok: false, status_code: null, error: `refused: ${refusal}` };
    try {
      const { agent, request } = await this.client();
      const res = await request(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Burrow-Webhooks/1', ...headers },
        body,
        dispatcher: agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await res.body.dump({ limit: DISCARD_LIMIT }).catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { ok, status_code: res.statusCode, error: ok ? null : `HTTP ${res.statusCode}` };
    } catch (error) {
      return { ok: false, status_code: null, error: describe(error, this.options.timeoutMs) };
    }
  }

  async close(): Promise<void> {
    if (this.undici) await (await this.undici).agent.close();
  }
}

/** A failure in a few words, for the delivery log. */
function describe(error: unknown, timeoutMs: number): string {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const cause = e.cause ?? e;
  if (cause.code === 'EWEBHOOKADDRESS') return `refused: ${cause.message}`;
  if (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    cause.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    cause.code === 'UND_ERR_BODY_TIMEOUT' ||
    cause.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no response within ${timeoutMs} ms`;
  }
  if (cause.code === 'ECONNREFUSED') return 'connection refused';
  if (cause.code === 'ENOTFOUND' || cause.code === 'EAI_AGAIN') return 'host not found';
  if (cause.code === 'ECONNRESET' || cause.code === 'UND_ERR_SOCKET') return 'connection reset';
  if (cause.code?.startsWith('ERR_TLS') || cause.code?.includes('CERT')) return `TLS error (${cause.code})`;
  return cause.code ? `${cause.code}: ${cause.message}` : cause.message || 'delivery failed';
}
