/**
 * A service's bus handlers as plain functions for the lean bus (libs/transport/src/direct.ts,
 * issue 38): each `@MessagePattern` method of its controllers, called on the instance Nest made,
 * inside the service's hooks (what its global guard and interceptor were), its errors mapped to the
 * wire shape as `WireErrorFilter` maps them.
 *
 * Nest's pipeline did more than this for a handler in general (parameter decorators other than
 * `@Payload()`, pipes, per-handler guards, interceptors and filters). None of Burrow's handlers uses
 * any of it; a handler that does is refused when the service starts, naming it, rather than called
 * without what it asked for. Event handlers (`@EventPattern`, no reply) stay on Nest's path.
 */
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
import type { INestMicroservice, Type } from '@nestjs/common';
import { PATTERN_HANDLER_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants.js';
import type { DirectHandler } from '@burrow/transport';
import { isObservable, lastValueFrom } from 'rxjs';

/**
 * Runs around every request handler of a service, outermost first: `next` runs the rest (the
 * handler last). It may change `data` before calling `next` (taking credentials out of it), refuse
 * by throwing, or act after the handler (forget sessions after a write).
 */
export interface BusHook {
  around(data: unknown, next: () => Promise<unknown>): Promise<unknown>;
}

/** Nest's `@Payload()` parameter (RpcParamtype.PAYLOAD) at index 0. */
const PAYLOAD_AT_0 = '3:0';
/** Nest's `@MessagePattern` (PatternHandler.MESSAGE); 2 is `@EventPattern`. */
const MESSAGE_HANDLER = 1;
const ENHANCERS = [GUARDS_METADATA, INTERCEPTORS_METADATA, EXCEPTION_FILTERS_METADATA, PIPES_METADATA];

/** The methods of `prototype` and the classes it extends, each name once (the most derived), no getter run. */
function methods(prototype: object): Map<string, (...args: unknown[]) => unknown> {
  const found = new Map<string, (...args: unknown[]) => unknown>();
  for (let p: object | null = prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null)
    for (const name of Object.getOwnPropertyNames(p)) {
      const value: unknown = Object.getOwnPropertyDescriptor(p, name)?.value;
      if (name !== 'constructor' && !found.has(name) && typeof value === 'function')
        found.set(name, value as (...args: unknown[]) => unknown);
    }
  return found;
}

/**
 * Every request handler of `controllers` (instances from `app`), by subject. `toWire` maps a thrown
 * error to what the reply carries. Throws when a handler needs what only Nest's pipeline gives.
 */
export function directHandlers(
  app: INestMicroservice,
  controllers: readonly Type[],
  hooks: readonly BusHook[],
  toWire: (error: unknown) => unknown,
): Map<string, DirectHandler> {
  const table = new Map<string, DirectHandler>();
  for (const type of controllers) {
    const instance = app.get<object>(type, { strict: false });
    const refuse = (where: string, why: string): never => {
      throw new Error(
        `${type.name}${where}: ${why}; the lean bus (libs/runtime/src/direct-handlers.ts) cannot call it`,
      );
    };
    for (const key of ENHANCERS) if (Reflect.getMetadata(key, type)) refuse('', `a class-level ${key}`);
    for (const [name, method] of methods(type.prototype as object)) {
      const patterns = Reflect.getMetadata(PATTERN_METADATA, method) as unknown[] | undefined;
      if (!patterns) continue;
      const where = `.${name}`;
      // an event handler (@EventPattern) has no reply to write: it stays on Nest's path
      if (Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) !== MESSAGE_HANDLER) continue;
      for (const key of ENHANCERS) if (Reflect.getMetadata(key, method)) refuse(where, `a ${key}`);
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<
        string,
        { data?: unknown; pipes?: unknown[] }
      >;
      const keys = Object.keys(args);
      if (keys.some((k) => k !== PAYLOAD_AT_0)) refuse(where, `parameters other than @Payload() first (${keys})`);
      const payload = args[PAYLOAD_AT_0];
      if (payload && (payload.data !== undefined || payload.pipes?.length))
        refuse(where, '@Payload() with a property or pipes');
      // Nest passed nothing to a method without @Payload(): neither does this
      const call = payload
        ? (data: unknown) => Promise.resolve(method.call(instance, data))
        : () => Promise.resolve(method.call(instance));
      const handled = hooks.reduceRight<(data: unknown) => Promise<unknown>>(
        (next, hook) => (data) => hook.around(data, () => next(data)),
        async (data) => {
          const reply = await call(data);
          return isObservable(reply) ? lastValueFrom(reply, { defaultValue: undefined }) : reply;
        },
      );
      const direct: DirectHandler = async (data) => {
        try {
          return await handled(data);
        } catch (error) {
          throw toWire(error);
        }
      };
      for (const pattern of patterns) {
        if (typeof pattern !== 'string') refuse(where, 'a pattern that is not a subject');
        if (table.has(pattern as string)) refuse(where, `a second handler of ${String(pattern)}`);
        table.set(pattern as string, direct);
      }
    }
  }
  return table;
}
