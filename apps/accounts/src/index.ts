export { startAccounts, type RunningService } from './accounts.service.js';
