export { startBilling } from './billing.service.js';
