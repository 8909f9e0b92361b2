/**
 * import-folder's progress, on stderr (stdout is the JSON summary), drawn by showProgress. The walk
 * is lazy, so the total is what has been found so far and grows as the walk goes on.
 */
import { showProgress } from '../progress-display.js';

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
  // total and value in bytes; an empty file still moves it (at least 1, so an empty tree shows 100%)
  const display = showProgress(
    'import-folder',
    '{bar} {percentage}% | {filesDone}/{files} files | {done}/{found} MB | {rate} MB/s',
    {
      total: () => c.bytesFound,
      value: () => (c.bytesFound === 0 && c.files === c.filesDone ? 1 : c.bytesDone),
      payload: () => ({
        filesDone: c.filesDone,
        files: c.files,
        done: mb(c.bytesDone),
        found: mb(c.bytesFound),
        rate: c.rate(),
      }),
      line: () => c.line(),
    },
    stream,
    intervalMs,
  );
  return {
    found(bytes) {
      c.files += 1;
      c.bytesFound += bytes;
      display.update();
    },
    sent(bytes) {
      c.bytesSent += bytes;
      c.bytesDone += bytes;
      display.update();
    },
    done(rest, uploaded) {
      c.filesDone += 1;
      c.bytesDone += rest;
      if (uploaded) c.uploaded += 1;
      display.update();
    },
    log: (line) => display.log(line),
    stop: () => display.stop(),
  };
}
