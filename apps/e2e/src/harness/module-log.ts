/**
 * `node --import <this module's URL>`: the process writes the URL of every OpenTelemetry module it
 * loads to the file `BURROW_TEST_MODULE_LOG` names, one a line, so that a test can tell whether the
 * SDK was loaded at all (tracing off must load none of it).
 *
 * ES modules are seen through a resolve hook (`module.register`, Node 20.6+); a CommonJS
 * `require` on Node 20 is not (prom-client requires `@opentelemetry/api`, the API alone, which
 * Burrow's tracing does not count as the SDK).
 */
import { register } from 'node:module';

const file = process.env.BURROW_TEST_MODULE_LOG;
if (file) register('./module-log-hooks.js', import.meta.url, { data: { file } });

/** What NODE_OPTIONS takes to load this module first. */
export const moduleLogImport = (): string => `--import=${new URL(import.meta.url).href}`;
