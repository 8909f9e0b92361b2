/**
 * The names of the e2e scenario blocks, in the order they are listed. Plain data with no imports:
 * scripts/run-tests.mjs reads it to run each scenario file once per block (SCENARIO_BLOCK=<name>),
 * each in a process of its own. all-scenarios.ts says what each block runs.
 */
export const SCENARIO_BLOCKS = [
  'foundation',
  'billing',
  'appliance billing API',
  'groups',
  'device policies',
  'users',
  'partner',
  'partner backup',
  'reports',
  'tenant isolation',
  'hostile input',
  'concurrency and read-your-writes',
  'operator reservations and recovery',
  'storage usage and purging',
  'storage interface (B)',
  'cross-site writes',
  'revocation',
  'share rooms',
  'download faults',
  'file names',
  'blob integrity',
  'periodic blob scrub',
  'upload limits',
  'slow transfers',
  'appliance calls on users',
  'activation email limits',
  'WebDAV',
  'event feed',
  'webhooks',
  'user list pagination',
] as const;

export type ScenarioBlockName = (typeof SCENARIO_BLOCKS)[number];
