/**
 * Process entry: the accounts service alone, on NATS (NATS_URL required). Its output is a JSON log:
 * a generated first partner password goes to a file of the operator's, never to the log.
 */
import 'reflect-metadata';
import { runServiceProcess } from '@burrow/runtime';
import { startAccounts } from './accounts.service.js';

await runServiceProcess('accounts', (infra) => startAccounts(infra, { firstPasswordTo: 'file' }));
