/**
 * The composition of adapters chosen by configuration: the only place that knows which mode we run
 * in. NATS_URL -> NATS transport and the NATS JetStream key-value store, else the in-process bus
 * and an in-memory key-value store; EVENTSTORE_URL -> PostgreSQL (postgres://, postgresql://) or
 * KurrentDB (esdb://, kurrentdb://), else the SQLite file;
 * MONGODB_URL -> MongoDB, else SQLite files under the data directory's `read-models/` (or in
 * memory: BURROW_READ_MODELS); MINIO_URL -> MinIO, else the blob folder;
 * SMTP_URL -> SMTP, else `.eml` files in the data directory's `mail/` folder. With the process's
 * tracing (OTEL_EXPORTER_OTLP_ENDPOINT, libs/tracing) every store, transport and logger it makes is
 * traced; without, they are the adapters themselves.
 */
import { EVENTS_APPENDED_SUBJECT, type HealthReply, MAIL_SEND_TIMEOUT_MS } from '@burrow/contracts';
import { type BlobStore, LocalBlobStore, MinioBlobStore } from '@burrow/blobs';
import { type DocumentStore, MemoryDocumentStore, MongoDocumentStore, mongoDatabaseName } from '@burrow/documents';
import { EsdbEventStore, type EventStore, PostgresEventStore, SqliteEventStore } from '@burrow/event-store';
import { configureAggregateCache } from '@burrow/eventsourcing';
import { type KeyValueStore, MemoryKeyValueStore, NatsKeyValueStore, SqliteKeyValueStore } from '@burrow/kv';
import { EmlFolderMailer, type Mailer, SmtpMailer } from '@burrow/mailer';
import { sqliteDriverChoice } from '@burrow/sqlite';
import type { Tracing } from '@burrow/tracing';
import {
  BusStatus,
  InProcessBus,
  InProcessClient,
  InProcessServer,
  natsClient,
  natsConnectionOptions,
  natsServer,
  type NatsWatch,
  watchNatsConnection,
} from '@burrow/transport';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClientProxy, CustomTransportStrategy } from '@nestjs/microservices';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import type { BurrowConfig } from './config.js';
import { preparePrivateDataDir } from './data-dir.js';
import { DiskSpace } from './disk-space.js';
import { createLogger, type Logger } from './logger.js';
import { holdReadModels, openReadModels } from './read-models-dir.js';
import { OpsServer } from './ops-server.js';
import { type Broadcasts, startReplicaReports } from './replicas.js';
import { loadOrCreateSecret } from './secrets.js';

export interface InfrastructureOptions {
  /** where every logger of this process writes (default stdout); the admin CLI keeps stdout for its result */
  logDestination?: DestinationStream;
  /**
   * The process's tracing (libs/tracing, `startTracing`): the bus, the stores and the logs are
   * traced with it. None (tracing off), nothing is wrapped: no cost.
   */
  tracing?: Tracing | null;
}

const isPostgresUrl = (url: string) => /^postgres(ql)?:/i.test(url);

/** the SQLite driver is said once per process, at the first SQLite file opened */
let sqliteDriverLogged = false;

export class Infrastructure {
  readonly secret: string;
  private eventStorePromise: Promise<EventStore> | null = null;
  private blobStorePromise: Promise<BlobStore> | null = null;
  private keyValuePromise: Promise<KeyValueStore> | null = null;
  private durableKeyValuePromise: Promise<KeyValueStore> | null = null;
  private mailerInstance: Mailer | null = null;
  private readonly documentStores = new Map<string, Promise<DocumentStore>>();
  private natsPromise: Promise<NatsConnection> | null = null;
  private opsServerPromise: Promise<OpsServer | null> | null = null;
  /** held while this process uses the SQLite read models (admin rebuild-read-models waits for it) */
  private readModelsHold: { release(): void } | null = null;
  private readonly closers: (() => Promise<void> | void)[] = [];
  /** Every bus connection of this process: up or down, since when (the gateway's /healthz). */
  readonly busStatus = new BusStatus();
  /**
   * Called when a bus connection closes without being asked to and will not reconnect. The
   * service process entry (process.ts) logs and exits non-zero so a supervisor restarts it.
   */
  onBusLost: (connection: string, error?: Error) => void = () => undefined;

  constructor(
    readonly config: BurrowConfig,
    /** shared by every app of one standalone process; null on NATS */
    readonly bus: InProcessBus | null = config.natsUrl ? null : new InProcessBus(),
    private readonly options: InfrastructureOptions = {},
  ) {
    if (
      !config.eventstoreUrl ||
      !config.minio ||
      !config.secret ||
      (!config.mongodbUrl && config.readModels === 'sqlite')
    ) {
      // some state is local: the event store file, the blob folder, the generated secret or the read models
      const warning = preparePrivateDataDir(config.dataDir);
      if (warning) this.logger('runtime').warn({ dataDir: config.dataDir }, warning);
    }
    this.secret = loadOrCreateSecret(config.dataDir, config.secret);
  }

  get mode(): string {
    return this.config.natsUrl ? 'nats' : 'in-process';
  }

  /** The process's tracing when it is on (the gateway's HTTP server spans), else null. */
  get tracing(): Tracing | null {
    return this.options.tracing ?? null;
  }

  logger(name: string): Logger {
    return createLogger(name, this.config.logLevel, this.options.logDestination, this.options.tracing?.logFields);
  }

  /** Before the first SQLite file is opened: which driver (libs/sqlite chooses it by the Node version), once per process. */
  private sqliteInUse(): void {
    const { name, reason } = sqliteDriverChoice();
    if (sqliteDriverLogged) return;
    sqliteDriverLogged = true;
    this.logger('runtime').info({ driver: name, node: process.version, reason }, 'SQLite driver');
  }

  private natsWatch(logName: string): NatsWatch {
    return {
      log: this.logger(logName),
      status: this.busStatus,
      onLost: (connection, error) => this.onBusLost(connection, error),
    };
  }

  /** A plain NATS connection for broadcasts outside Nest's request/reply (append notices). */
  private nats(): Promise<NatsConnection> {
    if (!this.natsPromise) {
      const name = 'burrow-notices';
      this.natsPromise = connect(natsConnectionOptions(this.config.natsUrl!, name)).then((nc) => {
        let closing = false;
        watchNatsConnection(nc, name, this.natsWatch('event-notices'), () => closing);
        this.closers.push(() => {
          closing = true;
          return nc.drain();
        });
        return nc;
      });
    }
    return this.natsPromise;
  }

  eventStore(): Promise<EventStore> {
    if (!this.eventStorePromise) {
      const { tracing } = this;
      const url = this.config.eventstoreUrl;
      const system = !url ? 'sqlite' : isPostgresUrl(url) ? 'postgresql' : 'kurrentdb';
      this.eventStorePromise = tracing
        ? this.openEventStore().then((store) => tracing.eventStore(store, system))
        : this.openEventStore();
    }
    return this.eventStorePromise;
  }

  private async openEventStore(): Promise<EventStore> {
    configureAggregateCache({ maxStreams: this.config.aggregateCacheStreams });
    const url = this.config.eventstoreUrl;
    if (url) {
      // Both announce appends themselves (NOTIFY, the server's subscriptions): no bus notices.
      const store = isPostgresUrl(url) ? await PostgresEventStore.connect(url) : await EsdbEventStore.connect(url);
      this.closers.push(() => store.close());
      return store;
    }
    this.sqliteInUse();
    const store = SqliteEventStore.open(join(this.config.dataDir, 'events.sqlite'), {
      synchronous: this.config.sqliteSynchronous,
    });
    if (this.config.natsUrl) {
      // Several processes share the file: announce appends so their subscriptions poll at once.
      const nc = await this.nats();
      store.setOnAppended(() => nc.publish(EVENTS_APPENDED_SUBJECT));
      const sub = nc.subscribe(EVENTS_APPENDED_SUBJECT, { callback: () => store.notifyAppended() });
      this.closers.push(() => sub.unsubscribe());
    }
    this.closers.push(() => store.close());
    return store;
  }

  /** Read models of one service (each service owns its own database, `<MONGODB_URL's database>-<service>`). */
  documents(service: string): Promise<DocumentStore> {
    let p = this.documentStores.get(service);
    if (!p) {
      p = (async () => {
        const store = this.config.mongodbUrl
          ? await MongoDocumentStore.connect(this.config.mongodbUrl, mongoDatabaseName(this.config.mongodbUrl, service))
          : this.config.readModels === 'sqlite'
            ? this.sqliteReadModels(service)
            : new MemoryDocumentStore();
        this.closers.push(() => store.close());
        const system = this.config.mongodbUrl ? 'mongodb' : this.config.readModels;
        return this.tracing ? this.tracing.documents(store, system) : store;
      })();
      this.documentStores.set(service, p);
    }
    return p;
  }

  /** `<dataDir>/read-models/<service>.sqlite`; a file SQLite cannot read is replaced (rebuilt from the events). */
  private sqliteReadModels(service: string): DocumentStore {
    this.sqliteInUse();
    if (!this.readModelsHold) {
      const hold = holdReadModels(this.config.dataDir);
      this.readModelsHold = hold;
      // registered before the stores: closed after them
      this.closers.push(() => hold.release());
    }
    return openReadModels(this.config.dataDir, service, (reason) =>
      this.logger(service).warn(
        { reason },
        'the read-model file could not be read: it is replaced, and the read models are rebuilt from the event store',
      ),
    );
  }

  blobs(): Promise<BlobStore> {
    if (!this.blobStorePromise) {
      const opened: Promise<BlobStore> = this.config.minio
        ? MinioBlobStore.connect(this.config.minio)
        : Promise.resolve(new LocalBlobStore(join(this.config.dataDir, 'blobs')));
      const { tracing } = this;
      this.blobStorePromise = tracing
        ? opened.then((store) => tracing.blobs(store, this.config.minio ? 'minio' : 'local-folder'))
        : opened;
    }
    return this.blobStorePromise;
  }

  /**
   * Small shared state with a TTL (login counters): on NATS a JetStream key-value store every
   * replica shares, over its own connection (`burrow-kv`); in one process, memory.
   */
  keyValues(): Promise<KeyValueStore> {
    if (!this.keyValuePromise) this.keyValuePromise = this.openKeyValues();
    return this.keyValuePromise;
  }

  private async openKeyValues(): Promise<KeyValueStore> {
    if (!this.config.natsUrl) return new MemoryKeyValueStore();
    const name = 'burrow-kv';
    const nc = await connect(natsConnectionOptions(this.config.natsUrl, name));
    let closing = false;
    watchNatsConnection(nc, name, this.natsWatch('kv'), () => closing);
    this.closers.push(() => {
      closing = true;
      return nc.drain();
    });
    return new NatsKeyValueStore(nc);
  }

  /**
   * Small shared state with a TTL that must survive a restart (the ended sessions): on NATS the
   * same JetStream store as `keyValues` (its files outlive any one process); in one process, a
   * SQLite file in the data directory (`kv.sqlite`), so a logged-out cookie stays dead after a
   * restart in standalone mode too.
   */
  durableKeyValues(): Promise<KeyValueStore> {
    if (this.config.natsUrl) return this.keyValues();
    if (!this.durableKeyValuePromise) {
      this.durableKeyValuePromise = (async () => {
        this.sqliteInUse();
        const store = new SqliteKeyValueStore(join(this.config.dataDir, 'kv.sqlite'));
        this.closers.push(() => store.close());
        return store;
      })();
    }
    return this.durableKeyValuePromise;
  }

  /**
   * Where mail goes: the SMTP server of SMTP_URL, else one `.eml` file per message in the data
   * directory's `mail/` folder (owner-only), each file's path logged.
   */
  mailer(): Mailer {
    if (!this.mailerInstance) {
      const { smtpUrl, mailFrom, dataDir } = this.config;
      const mailer = smtpUrl
        ? new SmtpMailer({ url: smtpUrl, sender: mailFrom, timeoutMs: MAIL_SEND_TIMEOUT_MS })
        : new EmlFolderMailer(
            join(dataDir, 'mail'),
            mailFrom,
            this.logger('mailer'),
            this.config.mailOutboxMaxAgeDays * 86_400_000,
          );
      this.closers.push(() => mailer.close());
      this.mailerInstance = mailer;
    }
    return this.mailerInstance;
  }

  /**
   * The free space of the data directory, when it holds the blob folder or the event store file
   * (with MinIO and a database server there is nothing local to watch).
   */
  diskSpace(): DiskSpace {
    const local = !this.config.minio || !this.config.eventstoreUrl;
    return new DiskSpace(local ? this.config.dataDir : null, this.config.minFreeDiskMb);
  }

  /**
   * Publish/subscribe without queue groups (every subscriber gets every message): on NATS over the
   * notices connection, in one process over the in-process bus. For the replicas' reports.
   */
  async broadcasts(): Promise<Broadcasts> {
    if (!this.config.natsUrl) {
      const bus = this.bus!;
      return {
        publish: (subject, data) => void bus.publish(subject, JSON.stringify(data)),
        subscribe: (subject, onMessage) => bus.subscribe(subject, (message) => onMessage(JSON.parse(message))),
      };
    }
    const nc = await this.nats();
    return {
      publish: (subject, data) => nc.publish(subject, JSON.stringify(data)),
      subscribe: (subject, onMessage) => {
        const sub = nc.subscribe(subject, {
          callback: (error, message) => {
            if (error) return;
            try {
              onMessage(message.json());
            } catch {
              // not JSON: not a report
            }
          },
        });
        return () => sub.unsubscribe();
      },
    };
  }

  /** This process's own operations port (BURROW_OPS_PORT), once; null when not configured. */
  private opsServer(): Promise<OpsServer | null> {
    if (!this.opsServerPromise) {
      const port = this.config.opsPort;
      this.opsServerPromise =
        port === undefined
          ? Promise.resolve(null)
          : OpsServer.listen(port, this.busStatus).then((ops) => {
              this.closers.push(() => ops.close());
              this.logger('runtime').info(
                { port: ops.port },
                'operations port listening (/healthz, /readyz, /metrics of this process)',
              );
              return ops;
            });
    }
    return this.opsServerPromise;
  }

  /**
   * Makes this process's health as `service` heard on its own (issue 39, per-replica health): its
   * reports on the bus, which the gateways list in /readyz, and with BURROW_OPS_PORT its own
   * /readyz. Stopped when the infrastructure closes.
   */
  async reportHealth(service: string, health: () => Promise<HealthReply>): Promise<void> {
    const ops = await this.opsServer();
    ops?.add(service, health);
    const stop = startReplicaReports(
      await this.broadcasts(),
      this.config.replicaReportMs,
      health,
      ops ? `http://${hostname()}:${ops.port}` : undefined,
    );
    this.closers.push(stop);
  }

  /** The transport strategy a service listens on, in the queue group named after it. */
  serverStrategy(queue: string): CustomTransportStrategy {
    const tracing = this.tracing?.bus;
    return this.config.natsUrl
      ? natsServer(this.config.natsUrl, queue, this.natsWatch(queue), tracing)
      : new InProcessServer(this.bus!, queue, tracing);
  }

  client(name: string): ClientProxy {
    const tracing = this.tracing?.bus;
    // as unknown as: ClientNats is a ClientProxy whose own status and event types TypeScript will not widen to ClientProxy's defaults
    return this.config.natsUrl
      ? (natsClient(this.config.natsUrl, name, this.natsWatch(name), tracing) as unknown as ClientProxy)
      : new InProcessClient(this.bus!, tracing);
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // closing is best effort
      }
    }
  }
}
