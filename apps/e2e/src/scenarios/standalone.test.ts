/** Every e2e scenario against Burrow in standalone mode (one process, embedded adapters). */
import { startStandalone } from '../harness/standalone.js';
import { registerAllScenarios } from './all-scenarios.js';

registerAllScenarios('standalone', (env) => startStandalone(env), undefined);
