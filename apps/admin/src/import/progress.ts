/**
 * import-folder's progress, on stderr (stdout is the JSON summary): a `cli-progress` bar when
 * stderr is a terminal, otherwise (a log file, a pipe) one plain line every few seconds. The walk
 * is lazy, so the total is what has been found so far and grows as the walk goes on.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** a file was found, of this size */
  found(bytes: number): void;
  /** bytes of an upload went out */
  sent(bytes: number): void;
  /** a file is finished with: `rest` is what of it was not counted by sent() (all of an unchanged file) */
  done(rest: number, uploaded: boolean): void;
  /** a line for the operator (a failure), without breaking the bar */
  log(line: string): void;
  stop(): void;
}

const MB = 1e6;
const mb = (bytes: number) => (bytes / MB).toFixed(1);

class Counters {
  private readonly started = Date.now();
  files = 0;
  filesDone = 0;
  uploaded = 0;
  bytesFound = 0;
  bytesDone = 0;
  bytesSent = 0;

  rate(): string {
    const seconds = (Date.now() - this.started) / 1000;
    return seconds > 0 ? (this.bytesSent / MB / seconds).toFixed(1) : '0.0';
  }

  line(): string {
    return `${this.filesDone}/${this.files} files (${this.uploaded} uploaded), ${mb(this.bytesDone)}/${mb(this.bytesFound)} MB, ${mb(this.bytesSent)} MB sent, ${this.rate()} MB/s`;
  }
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, intervalMs = 5000): Progress {
  const c = new Counters();
  const count = {
    found(bytes: number) {
      c.files += 1;
      c.bytesFound += bytes;
    },
    sent(bytes: number) {
      c.bytesSent += bytes;
      c.bytesDone += bytes;
    },
    done(rest: number, uploaded: boolean) {
      c.filesDone += 1;
      c.bytesDone += rest;
      if (uploaded) c.uploaded += 1;
    },
  };

  if (!stream.isTTY) {
    const timer = setInterval(() => stream.write(`import-folder: ${c.line()}\n`), intervalMs);
    timer.unref();
    return {
      ...count,
      log: (line) => stream.write(`import-folder: ${line}\n`),
      stop() {
        clearInterval(timer);
        stream.write(`import-folder: done, ${c.line()}\n`);
      },
    };
  }

  const bars = new cliProgress.MultiBar(
    {
      stream,
      format: '{bar} {percentage}% | {filesDone}/{files} files | {done}/{found} MB | {rate} MB/s',
      hideCursor: true,
      clearOnComplete: false,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = () => ({ filesDone: c.filesDone, files: c.files, done: mb(c.bytesDone), found: mb(c.bytesFound), rate: c.rate() });
  const bar = bars.create(1, 0, payload());
  // Ctrl-C: give the terminal its cursor back (the bar hid it), then stop as an interrupt would
  const interrupted = () => {
    bars.stop();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  // total and value in bytes; an empty file still moves it (at least 1, so an empty tree shows 100%)
  const update = () => {
    bar.setTotal(Math.max(c.bytesFound, 1));
    bar.update(c.bytesFound === 0 && c.files === c.filesDone ? 1 : c.bytesDone, payload());
  };
  return {
    found(bytes) {
      count.found(bytes);
      update();
    },
    sent(bytes) {
      count.sent(bytes);
      update();
    },
    done(rest, uploaded) {
      count.done(rest, uploaded);
      update();
    },
    log: (line) => bars.log(`${line}\n`),
    stop() {
      process.off('SIGINT', interrupted);
      update();
      bars.stop();
    },
  };
}
