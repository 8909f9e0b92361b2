/** Process entry: the billing service alone, on NATS (NATS_URL required). */
import 'reflect-metadata';
import { runServiceProcess } from '@burrow/runtime';
import { startBilling } from './billing.service.js';

await runServiceProcess('billing', startBilling);
