/**
 * A process that starts a put it never finishes, for the BlobStore contract's "a killed process's
 * put is swept at start": it opens the store named by its argument (JSON: `{"kind": "local",
 * "dir"}` or `{"kind": "minio", "options"}`), puts a stream that stops after `bytes` bytes without
 * ending, prints `ready` once the store has had time to write them (temporary file, multipart
 * parts), and waits to be killed.
 */
import { LocalBlobStore, MinioBlobStore, type MinioBlobStoreOptions } from '@burrow/blobs';
import { Readable } from 'node:stream';

export type ChildStoreSpec = { kind: 'local'; dir: string } | { kind: 'minio'; options: MinioBlobStoreOptions };

const { spec, bytes } = JSON.parse(process.argv[2] ?? '{}') as { spec: ChildStoreSpec; bytes: number };
const store = spec.kind === 'local' ? new LocalBlobStore(spec.dir) : await MinioBlobStore.connect(spec.options);
const chunk = Buffer.alloc(64 * 1024, 0x5a);
let produced = 0;
let announced = false;
const source = new Readable({
  read() {
    if (produced < bytes) {
      produced += chunk.length;
      this.push(chunk);
    } else if (!announced) {
      announced = true;
      setTimeout(() => process.stdout.write('ready\n'), 1500);
    }
  },
});
store.put(source).catch((error: unknown) => process.stderr.write(`put failed: ${String(error)}\n`));
setInterval(() => undefined, 60_000);
