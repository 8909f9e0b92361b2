/**
 * How a long admin command shows its progress on stderr (stdout is its JSON summary): a
 * `cli-progress` bar when stderr is a terminal, otherwise (a log file, a pipe) one plain line every
 * few seconds. The command keeps its own counters; this only draws them.
 */
import cliProgress from 'cli-progress';

export interface ProgressSource {
  /** the bar's end and position (any unit) */
  total(): number;
  value(): number;
  /** the fields the bar's format names */
  payload(): Record<string, string | number>;
  /** the same, as one line for logs */
  line(): string;
}

export interface ProgressDisplay {
  /** redraws the bar (lines go out on their own timer) */
  update(): void;
  /** a line for the operator (a failure, a finding), without breaking the bar */
  log(line: string): void;
  stop(): void;
}

/** `name` prefixes the plain lines; `format` is the bar's (cli-progress tokens and `source.payload()`'s fields). */
export function showProgress(
  name: string,
  format: string,
  source: ProgressSource,
  stream: NodeJS.WriteStream = process.stderr,
  intervalMs = 5000,
): ProgressDisplay {
  if (!stream.isTTY) {
    const timer = setInterval(() => stream.write(`${name}: ${source.line()}\n`), intervalMs);
    timer.unref();
    return {
      update: () => undefined,
      log: (line) => stream.write(`${name}: ${line}\n`),
      stop() {
        clearInterval(timer);
        stream.write(`${name}: done, ${source.line()}\n`);
      },
    };
  }
  const bars = new cliProgress.MultiBar(
    { stream, format, hideCursor: true, clearOnComplete: false, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(1, 0, source.payload());
  // Ctrl-C: give the terminal its cursor back (the bar hid it), then stop as an interrupt would
  const interrupted = () => {
    bars.stop();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  const update = () => {
    bar.setTotal(Math.max(source.total(), 1));
    bar.update(source.value(), source.payload());
  };
  return {
    update,
    log: (line) => bars.log(`${line}\n`),
    stop() {
      process.off('SIGINT', interrupted);
      update();
      bars.stop();
    },
  };
}
