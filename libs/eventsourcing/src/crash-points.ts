/**
 * Crash tests' fault hooks (test support, not used in production): a `FaultHook` for ProcessLog
 * that stops the request reaching one step boundary (`CreateUser:allocate:after`) forever, which
 * is what kill -9 at that point looks like to the stores. Services' test contexts hand it to their
 * ProcessLog, restart on the same files and run recovery.
 */
import type { FaultHook } from './write-process.js';

export interface Crash {
  /** for ProcessLog: once armed, the first request reaching `point` stops there */
  faults: FaultHook;
  /** resolves when a request has reached `point` */
  reached: Promise<void>;
  /** from now on the next request reaching `point` stops there (set-up before it runs freely) */
  arm(): void;
  /**
   * Lets the stopped request go on: a request that was only paused (a stalled replica), not
   * killed. A crash test never calls it; that is what kill -9 looks like to the store.
   */
  resume(): void;
}

/** A fault hook that stops the request reaching `point` with a promise that resolves only on `resume()`. */
export function crashAt(point: string): Crash {
  let arrived!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const frozen = new Promise<void>((resolve) => (release = resolve));
  let armed = false;
  return {
    reached,
    arm: () => void (armed = true),
    resume: () => release(),
    faults(at) {
      if (!armed || at !== point) return;
      armed = false;
      arrived();
      return frozen;
    },
  };
}

/**
 * Arms the crash, starts the request and waits until it is stopped at the crash point; rejects if
 * it finished without reaching it. Returns the stopped request (it settles only after `resume()`).
 */
export async function untilCrashed<T>(crash: Crash, start: () => Promise<T>): Promise<{ request: Promise<T> }> {
  crash.arm();
  const request = start();
  const finished = request.then(
    () => {
      throw new Error('the request finished without reaching the crash point');
    },
    (error: unknown) => {
      throw new Error(`the request failed before the crash point: ${String(error)}`);
    },
  );
  await Promise.race([crash.reached, finished]);
  return { request };
}

/** `Kind:step:before` and `Kind:step:after` for each step, in order. */
export const stepsOf = (kind: string, steps: string[]) =>
  steps.flatMap((s) => [`${kind}:${s}:before`, `${kind}:${s}:after`]);
/** the points at or past the commit point: recovery must complete the write */
export const committed = (point: string) => point.endsWith(':commit:after') || point.includes(':complete:');
