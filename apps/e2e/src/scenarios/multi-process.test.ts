/** Every e2e scenario against Burrow as separate processes on a real NATS server. */
import { startMultiProcess } from '../harness/multi-process.js';
import { registerAllScenarios } from './all-scenarios.js';

const natsUrl = process.env.NATS_URL;
registerAllScenarios(
  'multi-process (NATS)',
  natsUrl ? (env) => startMultiProcess(natsUrl, env) : null,
  'NATS_URL not set and no nats-server found: multi-process suites skipped',
);
