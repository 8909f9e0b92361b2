/** import-folder once its command line is read: the password, the device, the import, the summary. */
import { importFolder, type ImportSummary } from './import-folder.js';
import { userPassword } from './password.js';
import { createProgress } from './progress.js';
import { StorageClient } from './storage-client.js';

export interface ImportOptions {
  root: string;
  url: string;
  user: string;
  device: string;
  concurrency: number;
}

export async function runImport(o: ImportOptions): Promise<{ result: ImportSummary; failed: boolean }> {
  const password = await userPassword(o.user);
  const client = new StorageClient(o.url, o.user, password, o.device, o.concurrency);
  try {
    // a wrong password or an unknown user stops here, before the walk starts
    await client.registerDevice();
    process.stderr.write(`import-folder: ${o.root} -> ${o.user}'s device ${o.device} at ${o.url}\n`);
    const summary = await importFolder(o.root, client, createProgress(), o.concurrency);
    const failed = summary.files.failed > 0 || summary.aborted !== undefined;
    if (!failed) await client.registerDevice(true);
    if (summary.aborted) process.stderr.write(`admin: import stopped: ${summary.aborted}\n`);
    return { result: summary, failed };
  } finally {
    client.close();
  }
}
