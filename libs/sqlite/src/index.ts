export type {
  RunResult,
  SqliteDatabase,
  SqliteDriver,
  SqliteDriverName,
  SqliteOpenOptions,
  SqliteStatement,
} from './api.js';
export {
  BETTER_SQLITE3_REFUSED_SINCE,
  chooseSqliteDriver,
  type DriverChoice,
  NODE_SQLITE_SINCE,
  sqliteDriver,
  sqliteDriverChoice,
  sqliteDriverNamed,
  usableSqliteDrivers,
  versionAtLeast,
} from './driver.js';
export { resultCodeName } from './result-codes.js';
