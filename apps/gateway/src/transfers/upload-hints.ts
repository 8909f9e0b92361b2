/**
 * What this gateway process last heard about a user's uploads (issue 37): the devices an upload or
 * a registration found, and about how many bytes the quota still held. A small upload of a known
 * length to a known device that fits skips `prepareUpload` and makes one bus round trip, the
 * commit, which decides the device, the path, the quota (exactly, by the usage ledger) and the
 * version. Everything else asks first, as before: a device not heard of, a size the hint says does
 * not fit, a length unknown (chunked), a large body, a hint too old. So a refusal the gateway can
 * foresee still comes before a byte is read; a hint gone stale (a device removed or a plan lowered
 * through another process, other devices' uploads) only means a small body is read, and perhaps
 * stored for the reaper, before the commit refuses it with the same status.
 */

/** Small uploads only: a refusal the hint did not foresee then reads and stores at most this much. */
export const HINTED_UPLOAD_MAX_BYTES = 128 * 1024;
/** A hint is trusted this long after it was last confirmed (every commit confirms it). */
export const UPLOAD_HINT_TTL_MS = 30_000;
/** Users remembered per process (the oldest confirmed is forgotten first). */
const USERS_MAX = 10_000;

interface Hint {
  devices: Set<string>;
  /** bytes the quota held when last heard (null: no limit) */
  remaining: number | null;
  at: number;
}

export class UploadHints {
  private readonly users = new Map<string, Hint>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether an upload of `size` bytes (undefined: unknown) to `device` may skip the prepare. */
  allows(userId: string, device: string, size: number | undefined): boolean {
    if (size === undefined || size > HINTED_UPLOAD_MAX_BYTES) return false;
    const hint = this.users.get(userId);
    if (!hint || this.now() - hint.at > UPLOAD_HINT_TTL_MS || !hint.devices.has(device)) return false;
    return hint.remaining === null || size <= hint.remaining;
  }

  /** About what the quota still holds, if the hint knows (undefined: not known). */
  remaining(userId: string): number | null | undefined {
    const hint = this.users.get(userId);
    return hint && this.now() - hint.at <= UPLOAD_HINT_TTL_MS ? hint.remaining : undefined;
  }

  /**
   * The device exists, and (when known) what the quota holds: from a prepare (`read`: what the
   * ledger held when it was read, taken as it is), a commit (`committed`) or a registration (no
   * figure). A commit's figure can only lower a fresh hint: replies of concurrent commits arrive in
   * any order, and one computed before a later commit (or before a refusal) would otherwise raise
   * the hint past what the quota holds, and let an upload the gateway could have refused skip the
   * prepare. Too low costs one prepare, which reads the ledger again.
   */
  learn(userId: string, device: string, remaining?: number | null, from: 'read' | 'committed' = 'read'): void {
    const old = this.users.get(userId);
    const fresh = old && this.now() - old.at <= UPLOAD_HINT_TTL_MS ? old : undefined;
    if (remaining === undefined && fresh === undefined) return; // a registration alone says nothing of the quota
    let figure = remaining === undefined ? fresh!.remaining : remaining;
    if (from === 'committed' && fresh && fresh.remaining !== null && (figure === null || figure > fresh.remaining))
      figure = fresh.remaining;
    const hint: Hint = { devices: fresh?.devices ?? new Set(), remaining: figure, at: this.now() };
    hint.devices.add(device);
    this.users.delete(userId);
    this.users.set(userId, hint);
    if (this.users.size > USERS_MAX) this.users.delete(this.users.keys().next().value!);
  }

  /** A device removed, or found missing: its uploads ask first again. */
  forgetDevice(userId: string, device: string): void {
    this.users.get(userId)?.devices.delete(device);
  }

  /** Everything about the user. */
  forget(userId: string): void {
    this.users.delete(userId);
  }

  /**
   * A commit refused for the quota: it holds nothing more, until a prepare reads otherwise (a
   * forgotten hint would let the reply of a commit that went through earlier set it high again).
   */
  exhausted(userId: string): void {
    const hint = this.users.get(userId);
    if (hint) {
      hint.remaining = 0;
      hint.at = this.now();
    }
  }
}
