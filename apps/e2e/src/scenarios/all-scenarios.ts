/** The list of scenario modules; both deployment modes run all of them. */
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
import { type TargetFactory, withTarget } from './scenarios.js';
import { shareRoomsScenarios } from './share-rooms.scenarios.js';
import { SLOW_TRANSFERS_IDLE_SECONDS, slowTransfersScenarios } from './slow-transfers.scenarios.js';
import { uploadLimitsScenarios } from './upload-limits.scenarios.js';
import { usersScenarios } from './users.scenarios.js';
import { WEBHOOK_TEST_ENV, webhooksScenarios } from './webhooks.scenarios.js';

export function registerAllScenarios(mode: string, factory: TargetFactory | null, skipReason: string | undefined) {
  withTarget(`${mode}: foundation`, factory, skipReason, foundationScenarios);
  withTarget(`${mode}: billing`, factory, skipReason, billingScenarios);
  withTarget(`${mode}: appliance billing API`, factory, skipReason, applianceBillingScenarios);
  withTarget(`${mode}: groups`, factory, skipReason, groupsScenarios);
  withTarget(`${mode}: device policies`, factory, skipReason, devicePoliciesScenarios);
  withTarget(`${mode}: users`, factory, skipReason, usersScenarios);
  withTarget(`${mode}: partner`, factory, skipReason, partnerScenarios);
  withTarget(`${mode}: partner backup`, factory, skipReason, partnerBackupScenarios);
  withTarget(`${mode}: reports`, factory, skipReason, reportsScenarios);
  withTarget(`${mode}: tenant isolation`, factory, skipReason, isolationScenarios);
  withTarget(`${mode}: hostile input`, factory, skipReason, hostileInputScenarios);
  withTarget(`${mode}: concurrency and read-your-writes`, factory, skipReason, concurrencyScenarios);
  withTarget(`${mode}: operator reservations and recovery`, factory, skipReason, operationsScenarios);
  withTarget(`${mode}: storage usage and purging`, factory, skipReason, purgeScenarios);
  withTarget(`${mode}: storage interface (B)`, factory, skipReason, browseScenarios);
  withTarget(`${mode}: cross-site writes`, factory, skipReason, crossSiteScenarios);
  withTarget(`${mode}: revocation`, factory, skipReason, revocationScenarios);
  withTarget(`${mode}: share rooms`, factory, skipReason, shareRoomsScenarios);
  withTarget(`${mode}: download faults`, factory, skipReason, downloadFaultsScenarios);
  withTarget(`${mode}: file names`, factory, skipReason, fileNamesScenarios);
  withTarget(`${mode}: blob integrity`, factory, skipReason, blobIntegrityScenarios);
  withTarget(`${mode}: periodic blob scrub`, factory, skipReason, periodicScrubScenarios, PERIODIC_SCRUB_ENV);
  withTarget(`${mode}: upload limits`, factory, skipReason, uploadLimitsScenarios);
  withTarget(`${mode}: slow transfers`, factory, skipReason, slowTransfersScenarios, { BURROW_IDLE_TIMEOUT_SECONDS: String(SLOW_TRANSFERS_IDLE_SECONDS) });
  withTarget(`${mode}: appliance calls on users`, factory, skipReason, applianceUsersScenarios);
  withTarget(`${mode}: activation email limits`, factory, skipReason, activationLimitsScenarios, ACTIVATION_LIMITS_ENV);
  withTarget(`${mode}: WebDAV`, factory, skipReason, davScenarios, DAV_TEST_ENV);
  withTarget(`${mode}: event feed`, factory, skipReason, eventsScenarios);
  withTarget(`${mode}: webhooks`, factory && (() => factory(WEBHOOK_TEST_ENV)), skipReason, webhooksScenarios);
  // Every user is created over HTTP with an scrypt hash: 2,500 in one process; the multi-process
  // run uses a smaller set (same test) to keep the suite's run time reasonable.
  const users = mode === 'standalone' ? 2500 : 300;
  withTarget(`${mode}: user list pagination`, factory, skipReason, (ctx) => paginationScenarios(ctx, { users, pageSize: users > 1000 ? 1000 : 100 }));
}
