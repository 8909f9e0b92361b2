/**
 * The operator's commands (`npm run admin -- <command> [options]`). The spec gives partners no way
 * to create partners or plans, so operators do it here; they also look after name reservations
 * and unfinished multi-step writes after a crash. `parseAdminCommandLine` reads one command
 * line without opening anything; main.ts then decides which bus the command runs on.
 */
import { type CommandLine, parseCommandLine } from './command-line.js';
import { importFolderCommands } from './commands/import-folder.js';
import { partnerCommands } from './commands/partners.js';
import { pendingWriteCommands } from './commands/pending-writes.js';
import { planCommands } from './commands/plans.js';
import { readModelCommands } from './commands/read-models.js';
import { reservationCommands } from './commands/reservations.js';
import { verifyBlobsCommands } from './commands/verify-blobs.js';

export const ADMIN_COMMANDS = [
  ...partnerCommands,
  ...planCommands,
  ...reservationCommands,
  ...pendingWriteCommands,
  ...importFolderCommands,
  ...verifyBlobsCommands,
  ...readModelCommands,
];

export const parseAdminCommandLine = (argv: readonly string[]): CommandLine => parseCommandLine(argv, ADMIN_COMMANDS);

export {
  type AdminAction,
  type AdminCommand,
  type BusAction,
  type CommandLine,
  type DirectAction,
  FailedResult,
  UsageError,
} from './command-line.js';
export type { ImportSummary } from './import/import-folder.js';
export type { VerifySummary } from './verify/verify-blobs.js';
