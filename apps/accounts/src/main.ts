/** Process entry: the accounts service alone, on NATS (NATS_URL required). */
import 'reflect-metadata';
import { runServiceProcess } from '@burrow/runtime';
import { startAccounts } from './accounts.service.js';

await runServiceProcess('accounts', startAccounts);
