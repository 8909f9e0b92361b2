/**
 * The scenario blocks; every deployment mode runs all of them. The test runner runs each group of
 * blocks (blocks.ts) of each mode in a process of its own, side by side with the others, naming
 * them in SCENARIO_GROUP.
 */
import { ACTIVATION_LIMITS_ENV, activationLimitsScenarios } from './activation-limits.scenarios.js';
import { applianceBillingScenarios } from './appliance-billing.scenarios.js';
import { applianceUsersScenarios } from './appliance-users.scenarios.js';
import { billingScenarios } from './billing.scenarios.js';
import { blobIntegrityScenarios, PERIODIC_SCRUB_ENV, periodicScrubScenarios } from './blob-integrity.scenarios.js';
import { browseScenarios } from './browse.scenarios.js';
import { concurrencyScenarios } from './concurrency.scenarios.js';
import { crossSiteScenarios } from './cross-site.scenarios.js';
import { revocationScenarios } from './revocation.scenarios.js';
import { DAV_TEST_ENV, davScenarios } from './dav.scenarios.js';
import { devicePoliciesScenarios } from './device-policies.scenarios.js';
import { downloadFaultsScenarios } from './download-faults.scenarios.js';
import { eventsScenarios } from './events.scenarios.js';
import { fileNamesScenarios } from './file-names.scenarios.js';
import { foundationScenarios } from './foundation.scenarios.js';
import { groupsScenarios } from './groups.scenarios.js';
import { hostileInputScenarios } from './hostile-input.scenarios.js';
import { isolationScenarios } from './isolation.scenarios.js';
import { operationsScenarios } from './operations.scenarios.js';
import { paginationScenarios } from './pagination.scenarios.js';
import { partnerScenarios } from './partner.scenarios.js';
import { partnerBackupScenarios } from './partner-backup.scenarios.js';
import { purgeScenarios } from './purge.scenarios.js';
import { reportsScenarios } from './reports.scenarios.js';
import { SCENARIO_BLOCKS, type ScenarioBlockName } from './blocks.js';
import { type ScenarioContext, SharedTargets, type TargetFactory, withTarget } from './scenarios.js';
import { shareRoomsScenarios } from './share-rooms.scenarios.js';
import { SLOW_TRANSFERS_IDLE_SECONDS, slowTransfersScenarios } from './slow-transfers.scenarios.js';
import { uploadLimitsScenarios } from './upload-limits.scenarios.js';
import { usersScenarios } from './users.scenarios.js';
import { WEBHOOK_TEST_ENV, webhooksScenarios } from './webhooks.scenarios.js';

// Every user is created over HTTP, each a multi-step write: 1,250 in one process (pages of 1,000,
// the most a page holds, and a second page); the multi-process runs page 300 by 100 (same test).
const paginationUsers = (mode: string) => (mode === 'standalone' ? 1250 : 300);

/** What each block runs, and the settings its target needs. */
const BLOCKS: Record<
  ScenarioBlockName,
  { body: (ctx: ScenarioContext, mode: string) => void; env?: Record<string, string> }
> = {
  foundation: { body: foundationScenarios },
  billing: { body: billingScenarios },
  'appliance billing API': { body: applianceBillingScenarios },
  groups: { body: groupsScenarios },
  'device policies': { body: devicePoliciesScenarios },
  users: { body: usersScenarios },
  partner: { body: partnerScenarios },
  'partner backup': { body: partnerBackupScenarios },
  reports: { body: reportsScenarios },
  'tenant isolation': { body: isolationScenarios },
  'hostile input': { body: hostileInputScenarios },
  'concurrency and read-your-writes': { body: concurrencyScenarios },
  'operator reservations and recovery': { body: operationsScenarios },
  'storage usage and purging': { body: purgeScenarios },
  'storage interface (B)': { body: browseScenarios },
  'cross-site writes': { body: crossSiteScenarios },
  revocation: { body: revocationScenarios },
  'share rooms': { body: shareRoomsScenarios },
  'download faults': { body: downloadFaultsScenarios },
  'file names': { body: fileNamesScenarios },
  'blob integrity': { body: blobIntegrityScenarios },
  'periodic blob scrub': { body: periodicScrubScenarios, env: PERIODIC_SCRUB_ENV },
  'upload limits': { body: uploadLimitsScenarios },
  'slow transfers': {
    body: slowTransfersScenarios,
    env: { BURROW_IDLE_TIMEOUT_SECONDS: String(SLOW_TRANSFERS_IDLE_SECONDS) },
  },
  'appliance calls on users': { body: applianceUsersScenarios },
  'activation email limits': { body: activationLimitsScenarios, env: ACTIVATION_LIMITS_ENV },
  WebDAV: { body: davScenarios, env: DAV_TEST_ENV },
  'event feed': { body: eventsScenarios },
  webhooks: { body: webhooksScenarios, env: WEBHOOK_TEST_ENV },
  'user list pagination': {
    body: (ctx, mode) => {
      const users = paginationUsers(mode);
      paginationScenarios(ctx, { users, pageSize: users > 1000 ? 1000 : 100 });
    },
  },
};

/**
 * Registers the blocks for `mode`: those SCENARIO_GROUP names (a JSON list; the test runner runs
 * each group of blocks.ts in a process of its own), else all of them.
 * The blocks of one process share their targets (SharedTargets), each with a partner of its own.
 */
export function registerAllScenarios(mode: string, factory: TargetFactory | null, skipReason: string | undefined) {
  const names = chosenBlocks();
  const shared = factory ? new SharedTargets(factory) : null;
  for (const name of names) {
    const block = BLOCKS[name];
    withTarget(`${mode}: ${name}`, shared?.forBlock() ?? null, skipReason, (ctx) => block.body(ctx, mode), block.env);
  }
}

function chosenBlocks(): readonly ScenarioBlockName[] {
  const known = (name: string): name is ScenarioBlockName => (SCENARIO_BLOCKS as readonly string[]).includes(name);
  const group = process.env.SCENARIO_GROUP;
  const names: string[] = group !== undefined ? (JSON.parse(group) as string[]) : [...SCENARIO_BLOCKS];
  const unknown = names.filter((name) => !known(name));
  if (unknown.length > 0)
    throw new Error(`not scenario blocks (apps/e2e/src/scenarios/blocks.ts): ${unknown.join(', ')}`);
  return names as ScenarioBlockName[];
}
