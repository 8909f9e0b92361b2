/**
 * Signing key material: BURROW_SECRET when set; otherwise (standalone) a random key generated once
 * and kept in the data directory with owner-only permissions.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadOrCreateSecret(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = join(dataDir, 'secret.key');
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    secret = randomBytes(32).toString('base64url');
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  }
  try {
    chmodSync(file, 0o600); // whatever the umask, or an older version, left
  } catch {
    // not its owner: the private data directory still keeps others out
  }
  return secret;
}
