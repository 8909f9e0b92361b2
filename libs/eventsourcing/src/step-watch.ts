/**
 * The projection runner's step under way (applying an event, committing a batch, loading the
 * checkpoint): a step still unfinished after `slowMs` is logged once at warn, naming it, and
 * readiness names it when it has run past the lag limit. A read-model operation that never
 * returns would otherwise leave the runner stalled with nothing said.
 */
export class StepWatch {
  private what: () => string = () => '';
  private since = 0;
  private warned = false;
  private id = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly slowMs: number,
    private readonly log: (level: 'info' | 'warn', msg: string, extra: object) => void,
    private readonly position: () => number,
  ) {}

  /** A step begins, known by `what` (named only if it is slow: no string per event); returns its id for `end`. */
  begin(what: () => string): number {
    this.what = what;
    this.since = Date.now();
    this.warned = false;
    return ++this.id;
  }

  end(id: number): void {
    if (id !== this.id || this.since === 0) return;
    if (this.warned)
      this.log('info', 'a slow read-model step finished', { step: this.what(), seconds: this.seconds() });
    this.since = 0;
  }

  async track<T>(what: () => string, run: () => Promise<T>): Promise<T> {
    const id = this.begin(what);
    try {
      return await run();
    } finally {
      this.end(id);
    }
  }

  /** The step under way when it has run longer than `limitMs`, as readiness words it; null otherwise. */
  stalledPast(limitMs: number): string | null {
    if (this.since === 0 || Date.now() - this.since <= limitMs) return null;
    return `read models are stalled: ${this.what()} has not finished after ${this.seconds()} s`;
  }

  /** Once a second: a step unfinished for `slowMs` is logged once, at warn. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => {
        if (this.since === 0 || this.warned || Date.now() - this.since < this.slowMs) return;
        this.warned = true;
        this.log('warn', 'a read-model step is taking long', {
          step: this.what(),
          seconds: this.seconds(),
          position: this.position(),
        });
      },
      Math.min(1000, this.slowMs),
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private seconds(): number {
    return Math.round((Date.now() - this.since) / 1000);
  }
}
