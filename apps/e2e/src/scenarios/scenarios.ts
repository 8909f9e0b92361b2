/**
 * End-to-end scenarios, written once and run against every way Burrow can be deployed here:
 * standalone (one process) and multi-process on a real NATS server. Each scenario module exports a
 * function that registers its tests given a target factory.
 */
import { after, before, describe } from 'node:test';
import type { TestTarget } from '../harness/standalone.js';

/** Starts a target; `env` holds settings a scenario module needs (a short idle limit, webhooks to loopback). */
export type TargetFactory = (env?: Record<string, string>) => Promise<TestTarget>;

export interface ScenarioContext {
  /** the running target (valid inside tests) */
  target(): TestTarget;
}

/** Boots one target for a describe block (with `env` added to its configuration) and shuts it down after. */
export function withTarget(name: string, factory: TargetFactory | null, skipReason: string | undefined, body: (ctx: ScenarioContext) => void, env?: Record<string, string>) {
  // SCENARIO=<regex> boots only the targets whose block name matches (TEST_NAME filters tests, not
  // targets); the test runner applies it itself and runs each block alone (SCENARIO_BLOCK)
  const only = process.env.SCENARIO;
  if (only && process.env.SCENARIO_BLOCK === undefined && !new RegExp(only).test(name)) return;
  describe(name, { skip: factory ? false : skipReason }, () => {
    let target: TestTarget | undefined;
    before(async () => {
      target = await factory!(env);
    });
    after(async () => {
      await target?.close();
    });
    body({
      target: () => {
        if (!target) throw new Error('target not started');
        return target;
      },
    });
  });
}
