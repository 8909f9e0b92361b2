/**
 * Whose a put's temporary data is, written into its name, so that a process starting up can tell
 * the temporaries of puts still under way (their process runs) from those a killed process left
 * (it runs no more) and remove those at once, instead of after the reaper's grace (a day).
 *
 * A name reads `put.<system>.<pid>.<token>.<uuid>`: `system` identifies this host and its pid
 * namespace (a container has its own pids: its processes cannot be judged from outside it),
 * `token` this process's start. A temporary is abandoned when it is this system's and its pid
 * runs no more, or is this very pid with another token (a container restarted: pid 1 again).
 * Whatever cannot be judged (another host, names of older versions) is left to the grace sweep.
 */
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return ''; // no /proc (macOS): the host name alone
  }
}

const SYSTEM = Buffer.from(`${hostname()} ${pidNamespace()}`).toString('base64url');
const TOKEN = randomUUID().slice(0, 8);
const PREFIX = 'put';

/** A fresh name for a put's temporary data, carrying its owner. */
export const temporaryName = (): string => `${PREFIX}.${SYSTEM}.${process.pid}.${TOKEN}.${randomUUID()}`;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `name` (a temporary's, from temporaryName) is a put whose process is gone; false when that cannot be told. */
export function abandoned(name: string): boolean {
  const [prefix, system, pid, token] = name.split('.');
  if (prefix !== PREFIX || system !== SYSTEM || !/^\d+$/.test(pid ?? '')) return false;
  if (Number(pid) === process.pid) return token !== TOKEN;
  return !running(Number(pid));
}
