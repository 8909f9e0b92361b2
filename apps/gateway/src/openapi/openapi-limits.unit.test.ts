/**
 * Every limit the OpenAPI document states is the one the parser enforces: for each documented
 * request-body property and query parameter, values at the documented bounds are accepted and
 * values just past them refused, by the very schema the gateway parses that request with (the body
 * schema by its component name, the query schema from the route's @Query decorator).
 */
import 'reflect-metadata';
import * as contracts from '@burrow/contracts';
import { parseQuery, z } from '@burrow/contracts';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCOUNTS_API_MOUNTS } from '../accounts-api/mount.js';
import { GATEWAY_CONTROLLERS, gatewayOpenApiDocument } from '../gateway.routes.js';
import { HTTP_METHODS, type Parameter, type Schema } from '../http/openapi-types.js';

const doc = gatewayOpenApiDocument();

/** Component name -> the zod schema it was generated from (every contracts export with an id). */
const parsers = new Map<string, z.ZodType>();
for (const value of Object.values(contracts)) {
  if (value instanceof z.ZodType) {
    const id = z.globalRegistry.get(value)?.id;
    if (id) parsers.set(id, value);
  }
}

const MOUNTS = ACCOUNTS_API_MOUNTS.filter((m) => m !== '');
function normalize(path: string): string {
  let p = `/${path}`.replace(/\/{2,}/g, '/');
  for (const mount of MOUNTS) if (p.startsWith(`/${mount}/`)) p = p.slice(mount.length + 1);
  // `:name` and the multi-segment wildcard `*name` are both a `{name}` in OpenAPI
  p = p.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** `GET /users` -> the zod object its handler parses the query with (from the @Query decorator). */
function routeQuerySchemas(): Map<string, z.ZodObject> {
  const out = new Map<string, z.ZodObject>();
  for (const controller of GATEWAY_CONTROLLERS as unknown as (new (...args: never[]) => unknown)[]) {
    const prefixes = [Reflect.getMetadata(PATH_METADATA, controller)].flat().map(String);
    for (const key of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[key];
      if (typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {}) as Record<
        string,
        { data?: { parser?: unknown } }
      >;
      const query = Object.values(args)
        .map((a) => a.data?.parser)
        .find((d): d is z.ZodObject => d instanceof z.ZodObject);
      if (!query) continue;
      for (const prefix of prefixes) {
        for (const path of [Reflect.getMetadata(PATH_METADATA, handler)].flat().map(String))
          out.set(`${RequestMethod[method]} ${normalize(`${prefix}/${path}`)}`, query);
      }
    }
  }
  return out;
}

interface Probe {
  value: unknown;
  ok: boolean;
  why: string;
}

/** Values at and just past each bound the JSON Schema states. */
function probes(schema: Schema): Probe[] {
  const out: Probe[] = [];
  const variants = (schema.anyOf as Schema[] | undefined) ?? [schema];
  for (const s of variants) {
    const types = [s.type].flat();
    if (types.includes('integer')) {
      if (typeof s.minimum === 'number' && Number.isSafeInteger(s.minimum - 1)) {
        out.push(
          { value: s.minimum, ok: true, why: `minimum ${s.minimum}` },
          { value: s.minimum - 1, ok: false, why: `below minimum ${s.minimum}` },
        );
      }
      if (typeof s.maximum === 'number' && Number.isSafeInteger(s.maximum + 1)) {
        out.push(
          { value: s.maximum, ok: true, why: `maximum ${s.maximum}` },
          { value: s.maximum + 1, ok: false, why: `above maximum ${s.maximum}` },
        );
      }
    }
    if (types.includes('string')) {
      if (typeof s.maxLength === 'number') {
        if (s.pattern === undefined && s.enum === undefined)
          out.push({ value: 'x'.repeat(s.maxLength), ok: true, why: `maxLength ${s.maxLength}` });
        out.push({ value: 'x'.repeat(s.maxLength + 1), ok: false, why: `over maxLength ${s.maxLength}` });
      }
      if (typeof s.minLength === 'number' && s.minLength > 0)
        out.push({ value: 'x'.repeat(s.minLength - 1), ok: false, why: `under minLength ${s.minLength}` });
      if (Array.isArray(s.enum)) {
        for (const v of s.enum) out.push({ value: v, ok: true, why: `enum value ${String(v)}` });
        out.push({ value: 'not-one-of-them', ok: false, why: 'outside the enum' });
      }
    }
  }
  return out;
}

/** Whether `parse` names `field` as invalid. */
function refusesField(parse: () => unknown, field: string): boolean {
  try {
    parse();
    return false;
  } catch (error) {
    return ((error as { body?: { fields?: string[] } }).body?.fields ?? []).includes(field);
  }
}

describe("documented limits equal the parsers'", () => {
  it('request bodies: every bound of every property holds in the parser', () => {
    let checked = 0;
    for (const [name, component] of Object.entries(doc.components.schemas)) {
      const parser = parsers.get(name);
      if (!parser || !name.endsWith('Body') || component.type !== 'object') continue;
      for (const [prop, propSchema] of Object.entries((component.properties ?? {}) as Record<string, Schema>)) {
        for (const probe of probes(propSchema)) {
          const refused = refusesField(() => contracts.parseRequest(parser, { [prop]: probe.value }), prop);
          assert.equal(
            refused,
            !probe.ok,
            `${name}.${prop}: ${probe.why} (${JSON.stringify(probe.value)}) is documented as ${probe.ok ? 'accepted' : 'refused'}`,
          );
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `only ${checked} bounds checked`);
  });

  it('query parameters: each documented one is parsed by its route, with the documented bounds', () => {
    const routes = routeQuerySchemas();
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        const params = (op?.parameters ?? []).filter((p): p is Parameter => (p as Parameter).in === 'query');
        if (!params.length || op?.['x-burrow-lenient-query']) continue;
        const route = `${method.toUpperCase()} ${normalize(path)}`;
        const schema = routes.get(route);
        assert.ok(schema, `${route} documents query parameters but parses none`);
        assert.deepEqual(
          params.map((p) => p.name).sort(),
          Object.keys(schema.shape).sort(),
          `${route}: documented and parsed parameters differ`,
        );
        for (const param of params) {
          for (const probe of probes(param.schema)) {
            const refused = refusesField(() => parseQuery(schema, { [param.name]: String(probe.value) }), param.name);
            assert.equal(
              refused,
              !probe.ok,
              `${route} ?${param.name}: ${probe.why} is documented as ${probe.ok ? 'accepted' : 'refused'}`,
            );
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 15, `only ${checked} bounds checked`);
  });

  it('the probe notices a limit the parser does not enforce (self-check)', () => {
    const loose = z.object({ name: z.string() });
    const refused = refusesField(() => contracts.parseRequest(loose, { name: 'x'.repeat(256) }), 'name');
    assert.equal(refused, false, 'a documented maxLength of 255 would be caught as not enforced');
    const tight = z.object({ name: z.string().max(255) });
    assert.equal(
      refusesField(() => contracts.parseRequest(tight, { name: 'x'.repeat(256) }), 'name'),
      true,
    );
    assert.equal(probes({ type: 'integer', minimum: 1, maximum: 12 }).length, 4);
    assert.deepEqual(
      probes({ type: 'string', enum: ['a'] }).map((p) => p.ok),
      [true, false],
    );
  });
});
