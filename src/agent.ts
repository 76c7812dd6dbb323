// The exporter's lifecycle: state database → store → collectors → outputs, and back in reverse.

import { watch, type FSWatcher } from 'chokidar';
import { existsSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Server } from 'node:http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { Collector, type CollectorStats } from './collectors/collector.js';
import { READERS } from './collectors/registry.js';
import { ConfigError, splitAddress, type Config } from './config/load.js';
import type { Logger } from './log.js';
import { otlpReader } from './metrics/otlp.js';
import { SnapshotProducer } from './metrics/producer.js';
import { prometheusExporter } from './metrics/prometheus.js';
import { startServer } from './metrics/server.js';
import { liveSessions, snapshot, type Family, type LiveSession, type SnapshotOptions } from './metrics/snapshot.js';
import { createPriceTable, readOverrides } from './pricing/prices.js';
import { ProcessMonitor } from './process/monitor.js';
import { platformTable } from './process/table.js';
import { SessionStore } from './session/store.js';
import { StateDb } from './state/db.js';
import { VERSION } from './version.js';

export interface AgentOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export class Agent {
  readonly store: SessionStore;
  readonly collectors = new Map<string, Collector<unknown>>();
  readonly startedAt = Date.now();
  private readonly db: StateDb;
  private readonly snapshotOptions: SnapshotOptions;
  private server?: Server;
  private provider?: MeterProvider;
  private watchers: FSWatcher[] = [];
  private watchNewFolders?: () => void;
  private timer?: NodeJS.Timeout;
  private processTimer?: NodeJS.Timeout;
  private readonly monitor?: ProcessMonitor;

  constructor(readonly config: Config, private readonly log: Logger, opts: AgentOptions = {}) {
    const env = opts.env ?? process.env;
    const home = opts.home ?? env.HOME ?? homedir();
    this.db = new StateDb(config.stateDir);
    this.store = new SessionStore(this.db, createPriceTable(priceOverrides(config.pricing.overridesFile)), config.project);
    for (const [name, reader] of Object.entries(READERS)) {
      const section = config.collectors[name]!;
      if (!section.enabled) continue;
      const roots = section.roots.length > 0 ? section.roots.map((r) => resolve(r)) : reader.defaultRoots(env, home);
      this.collectors.set(name, new Collector(name, reader, roots, this.store, this.db, log));
    }
    if (config.processes.enabled) {
      const table = platformTable(config.processes.procRoot);
      if (!table) log.info('no process table on this platform: statuses come from session files alone', { platform: process.platform });
      const openFileSession = Object.fromEntries(Object.values(READERS).filter((r) => r.sessionOfOpenFile).map((r) => [r.harness, r.sessionOfOpenFile!]));
      if (table) this.monitor = new ProcessMonitor(table, this.store, openFileSession, log);
    }
    this.snapshotOptions = {
      status: { doneForMs: config.sessions.doneForSeconds * 1000, staleAfterMs: config.sessions.staleAfterSeconds * 1000 },
      activeWindowMs: config.sessions.activeWindowSeconds * 1000,
      perSessionMax: config.sessions.perSessionMax,
      version: VERSION,
    };
  }

  /** Reads every collector, then the process table (which joins processes to what was read). */
  async scanAll(): Promise<void> {
    for (const c of this.collectors.values()) await c.scan();
    // While serving, the process table is read on its own timer, once a second.
    if (!this.processTimer) this.monitor?.scan();
  }

  families(now = Date.now()): Family[] {
    const stats = new Map<string, CollectorStats>([...this.collectors].map(([n, c]) => [n, c.stats]));
    return snapshot(this.store, stats, this.snapshotOptions, now);
  }

  sessions(now = Date.now()): LiveSession[] {
    return liveSessions(this.store, now, this.snapshotOptions);
  }

  /** Serves /metrics, pushes OTLP if configured, and keeps reading as files change. */
  async start(): Promise<{ host: string; port: number }> {
    const producer = new SnapshotProducer(() => this.families(), this.startedAt);
    const exporter = prometheusExporter(producer);
    const readers: MetricReader[] = [exporter];
    const { otlp } = this.config;
    if (otlp.endpoint) {
      readers.push(otlpReader(producer, {
        endpoint: otlp.endpoint, protocol: otlp.protocol, headers: otlp.headers,
        intervalMs: otlp.intervalSeconds * 1000, temporality: otlp.temporality,
      }));
    }
    this.provider = new MeterProvider({
      resource: resourceFromAttributes({
        'service.name': 'coding-agent-exporter',
        'service.version': VERSION,
        'service.instance.id': hostname(),
        'host.name': hostname(),
        ...parseResourceEnv(process.env.OTEL_RESOURCE_ATTRIBUTES),
        ...otlp.resourceAttributes,
      }),
      readers,
    });

    const [host, port] = splitAddress(this.config.listenAddress);
    this.server = await startServer(exporter, { host, port, path: this.config.metricsPath, version: VERSION });
    const address = this.server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    this.log.info('listening', { address: `${host}:${bound}`, path: this.config.metricsPath });

    await this.scanAll();
    this.log.info('first scan done', { collectors: [...this.collectors.keys()], sessions: this.store.sessions.size });
    if (this.config.watch) this.startWatching();
    this.timer = setInterval(() => {
      this.watchNewFolders?.();
      void this.scanAll();
    }, this.config.rescanSeconds * 1000);
    this.timer.unref();
    // Processes come and go without writing anything: the table is read every second on its own.
    if (this.monitor) {
      const monitor = this.monitor;
      this.processTimer = setInterval(() => monitor.scan(), 1000);
      this.processTimer.unref();
    }
    return { host, port: bound };
  }

  /**
   * Watches only the folders where session files change (not a harness's whole folder: no
   * settings, logs or credentials), and the single files a store is made of (a database and its
   * `-wal`, which come and go with the harness: their folder is watched, not recursively, for
   * them), and reads a collector again when something changed there. A folder that does not
   * exist yet (a harness installed later) is watched from the rescan that finds it.
   */
  private startWatching(): void {
    const collectors = [...this.collectors.values()];
    const folders = collectors.flatMap((c) => c.watchPaths().map((path) => ({ path, c })));
    const files = collectors.flatMap((c) => c.watchFiles().map((path) => ({ path, c })));
    const pending = new Set<Collector<unknown>>();
    let timer: NodeJS.Timeout | undefined;
    const changed = (c: Collector<unknown> | undefined) => {
      if (!c) return;
      pending.add(c);
      // Bursts of appends (a streamed answer) become one read.
      timer ??= setTimeout(() => {
        timer = undefined;
        const todo = [...pending];
        pending.clear();
        for (const t of todo) void t.scan();
      }, 100);
    };
    const deep = watch([], { ignoreInitial: true, depth: 5, ignorePermissionErrors: true });
    const shallow = watch([], { ignoreInitial: true, depth: 0, ignorePermissionErrors: true });
    this.watchers = [deep, shallow];
    const watched = new Set<string>();
    const watchExisting = (watcher: FSWatcher, paths: string[]) => {
      const found = [...new Set(paths)].filter((p) => !watched.has(p) && existsSync(p));
      for (const p of found) watched.add(p);
      if (found.length > 0) watcher.add(found);
    };
    this.watchNewFolders = () => {
      watchExisting(deep, folders.map((r) => r.path));
      watchExisting(shallow, files.map((r) => dirname(r.path)));
    };
    this.watchNewFolders();
    deep.on('all', (_event, path) => changed(folders.find((r) => path.startsWith(r.path))?.c));
    shallow.on('all', (_event, path) => changed(files.find((r) => r.path === path)?.c));
    for (const w of this.watchers) w.on('error', (e) => this.log.warn('watch error', { error: String(e) }));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.processTimer) clearInterval(this.processTimer);
    await Promise.all(this.watchers.map((w) => w.close()));
    // A scan under way finishes (and commits) before the database closes.
    await Promise.all([...this.collectors.values()].map((c) => c.idle()));
    this.store.commit();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    await this.provider?.shutdown().catch((e: unknown) => this.log.warn('metrics shutdown', { error: String(e) }));
    this.db.close();
  }
}

/** The price override file's prices; a bad file stops start-up naming the file and the model. */
function priceOverrides(path: string): ReturnType<typeof readOverrides> {
  if (!path) return {};
  try {
    return readOverrides(path);
  } catch (e) {
    throw new ConfigError(`pricing.overridesFile (${path}): ${(e as Error).message}`);
  }
}

function parseResourceEnv(value: string | undefined): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i > 0) attrs[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(pair.slice(i + 1).trim());
  }
  return attrs;
}
