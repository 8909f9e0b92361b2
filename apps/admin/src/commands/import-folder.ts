/**
 * `import-folder --user U --device D PATH`: backs a local folder up into a user's device through a
 * gateway's storage interface, the way a backup client does (import/import-folder.ts). It needs no
 * bus and no data directory: only the gateway's URL and the user's password.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type AdminCommand, given, optional, UsageError, wholeNumber } from '../command-line.js';
import { checkPasswordSource, PASSWORD_ENV } from '../import/password.js';

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

export const importFolderCommands: AdminCommand[] = [
  {
    name: 'import-folder',
    summary: "back a local folder up into a user's device, through a gateway; re-runs upload only what changed",
    details:
      `The user's password comes from ${PASSWORD_ENV}, or is asked on the terminal (never an option:\n` +
      'it would show in ps). A file whose size and mtime match the stored one is not uploaded again.\n' +
      'Symlinks and special files are skipped; unreadable files and names the storage refuses are\n' +
      'reported and the import goes on. Prints a JSON summary; exit 1 if any file failed.',
    options: {
      user: {
        type: 'string',
        value: 'U',
        required: true,
        description: 'the user (username) whose storage receives the files',
      },
      device: {
        type: 'string',
        value: 'D',
        required: true,
        description: 'the device to back up into (registered if new)',
      },
      url: {
        type: 'string',
        value: 'URL',
        description: `the gateway (default: BURROW_URL, or ${DEFAULT_GATEWAY_URL})`,
      },
      concurrency: { type: 'string', value: 'N', description: 'uploads at once (default 4, 1 to 16)' },
    },
    arguments: [{ name: 'PATH', description: 'the local folder' }],
    prepare(o) {
      const root = resolve(given(o, 'PATH'));
      let isFolder = false;
      try {
        isFolder = statSync(root).isDirectory();
      } catch {
        // named below
      }
      if (!isFolder) throw new UsageError(`PATH ${root} is not a folder`);
      const url = optional(o, 'url') ?? process.env.BURROW_URL ?? DEFAULT_GATEWAY_URL;
      if (!/^https?:\/\/[^/]/.test(url))
        throw new UsageError(`--url must be an http:// or https:// URL (got "${url}")`);
      const concurrency = wholeNumber(o, 'concurrency') ?? 4;
      if (concurrency < 1 || concurrency > 16)
        throw new UsageError(`--concurrency must be 1 to 16 (got ${concurrency})`);
      const device = given(o, 'device');
      if (device.includes('/') || device === '.' || device === '..')
        throw new UsageError(`--device must be a single name (got "${device}")`);
      checkPasswordSource();
      const user = given(o, 'user');
      return {
        async direct() {
          const { runImport } = await import('../import/run.js');
          return runImport({ root, url, user, device, concurrency });
        },
      };
    },
  },
];
