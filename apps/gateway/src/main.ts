/** Process entry: one gateway replica on NATS (NATS_URL required). */
import 'reflect-metadata';
import { runServiceProcess } from '@burrow/runtime';
import { startGateway } from './gateway.service.js';

await runServiceProcess('gateway', startGateway);
