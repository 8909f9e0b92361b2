/** `npm start`: Burrow in one process (standalone mode). */
import { readConfig } from '@burrow/runtime';
import { startSystem } from './system.js';

let config;
try {
  config = readConfig();
} catch (error) {
  process.stderr.write(`burrow: ${(error as Error).message}\n`);
  process.exit(2);
}
try {
  const system = await startSystem(config);
  process.stdout.write(
    `Burrow is running at http://localhost:${system.port}/ (data in ${config.dataDir}, transport ${system.infra.mode})\n`,
  );
  const stop = async () => {
    await system.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
} catch (error) {
  process.stderr.write(`burrow: failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
}
