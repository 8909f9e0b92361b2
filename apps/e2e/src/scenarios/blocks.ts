/**
 * The names of the e2e scenario blocks, and how the test runner groups them. Plain data with no
 * imports: scripts/run-tests.mjs reads it to run each scenario file once per group
 * (SCENARIO_GROUP=<JSON list of names>), each group in a process of its own, side by side. The
 * blocks of a group share a target per setting (a multi-process target is five processes to
 * start), each with a partner of its own. all-scenarios.ts says what each block runs.
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

/**
 * The groups, each a test process per mode. Blocks with settings of their own (a short idle limit,
 * webhooks to loopback, a periodic scrub, activation limits) get a target of their own anyway, so
 * they stand alone; the others are grouped to about the same running time.
 */
export const SCENARIO_GROUPS: readonly (readonly ScenarioBlockName[])[] = [
  ['foundation', 'billing', 'appliance billing API', 'reports', 'device policies'],
  ['groups', 'users', 'partner', 'partner backup'],
  ['tenant isolation', 'hostile input', 'cross-site writes', 'revocation'],
  ['concurrency and read-your-writes', 'operator reservations and recovery', 'appliance calls on users'],
  ['storage usage and purging', 'storage interface (B)', 'share rooms'],
  ['download faults', 'file names', 'blob integrity', 'upload limits'],
  ['WebDAV'],
  ['event feed', 'user list pagination'],
  ['periodic blob scrub'],
  ['slow transfers'],
  ['activation email limits'],
  ['webhooks'],
];
