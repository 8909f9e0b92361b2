/**
 * `rebuild-read-models`: drops the SQLite read models of a standalone data directory, so that the
 * next start rebuilds them from the event store (a read model whose code changed, or a damaged
 * file). The server must be stopped: refused while any process uses them.
 */
import type { AdminCommand } from '../command-line.js';

export const readModelCommands: AdminCommand[] = [
  {
    name: 'rebuild-read-models',
    summary:
      'drop the read models of the standalone data directory (server stopped) so the next start rebuilds them from the event store',
    details:
      'Deletes <BURROW_DATA_DIR>/read-models/*.sqlite (the SQLite read models, BURROW_READ_MODELS=sqlite, the\n' +
      'standalone default). Nothing else is touched: the event store, blobs and secret stay. Refused, with\n' +
      'nothing deleted, while a Burrow process uses them (stop the server first). The next start replays\n' +
      'the whole event store into new read models before it answers (its progress is logged).\n' +
      "Read models in MongoDB (MONGODB_URL) are not touched: drop those databases with MongoDB's tools.",
    options: {},
    prepare() {
      return {
        async direct() {
          const { readConfig, dropReadModels } = await import('@burrow/runtime');
          const config = readConfig();
          const { dir, removed } = dropReadModels(config.dataDir);
          const note = config.mongodbUrl
            ? 'MONGODB_URL is set: the services use MongoDB read models, which this does not touch'
            : undefined;
          return {
            failed: false,
            result: {
              dir,
              removed,
              next: removed.length
                ? 'the next start rebuilds the read models from the event store'
                : 'there were no read-model files: the next start builds them from the event store',
              ...(note ? { note } : {}),
            },
          };
        },
      };
    },
  },
];
