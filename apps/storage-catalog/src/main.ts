/** Process entry: the storage-catalog service alone, on NATS (NATS_URL required). */
import 'reflect-metadata';
import { runServiceProcess } from '@burrow/runtime';
import { startStorageCatalog } from './storage-catalog.service.js';

await runServiceProcess('storage-catalog', startStorageCatalog);
