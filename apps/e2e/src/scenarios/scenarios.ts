/**
 * End-to-end scenarios, written once and run against every way Burrow can be deployed here:
 * standalone (one process) and multi-process on a real NATS server. Each scenario module exports a
 * function that registers its tests given a target factory.
 */
import { after, before, describe } from 'node:test';
import { createPartner, uniqueName } from '../harness/client.js';
import type { TestTarget } from '../harness/standalone.js';

/** Starts a target; `env` holds settings a scenario module needs (a short idle limit, webhooks to loopback). */
export type TargetFactory = (env?: Record<string, string>) => Promise<TestTarget>;

export interface ScenarioContext {
  /** the running target (valid inside tests) */
  target(): TestTarget;
}

/** Gets a target for a describe block (with `env` added to its configuration) and lets it go after. */
export function withTarget(
  name: string,
  factory: TargetFactory | null,
  skipReason: string | undefined,
  body: (ctx: ScenarioContext) => void,
  env?: Record<string, string>,
) {
  // SCENARIO=<regex> boots only the targets whose block name matches (TEST_NAME filters tests, not
  // targets); the test runner applies it itself and names the blocks to run (SCENARIO_GROUP)
  const only = process.env.SCENARIO;
  if (only && process.env.SCENARIO_GROUP === undefined && !new RegExp(only).test(name)) return;
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

/**
 * Targets shared by the scenario blocks of one test process: starting a multi-process target (five
 * processes) costs more CPU than most blocks' tests, so blocks that need the same settings share
 * one. Each block still gets a partner of its own (created as the operator creates one, like the
 * bootstrapped one: unlimited, its username as its company name), so what a block does as "its"
 * partner (users, groups, settings, its API password) cannot meet another block's. The targets
 * close when every block of the process is done.
 */
export class SharedTargets {
  private readonly started = new Map<string, Promise<TestTarget>>();

  constructor(private readonly factory: TargetFactory) {
    after(() => this.closeAll());
  }

  /** A factory for one block: the shared target for `env`, seen with a new partner of the block's own. */
  forBlock(): TargetFactory {
    return async (env) => {
      const key = JSON.stringify(Object.entries(env ?? {}).sort());
      if (!this.started.has(key)) this.started.set(key, this.factory(env));
      const shared = await this.started.get(key)!;
      const username = uniqueName('partner');
      const { credentials } = await createPartner(shared, { username, company_name: username });
      return { ...shared, partner: credentials, close: async () => undefined };
    };
  }

  private async closeAll(): Promise<void> {
    const targets = [...this.started.values()];
    this.started.clear();
    for (const target of await Promise.allSettled(targets))
      if (target.status === 'fulfilled') await target.value.close();
  }
}
