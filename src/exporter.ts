// The exporter's lifecycle: state database → store → collectors → outputs, and back in reverse.

import { homedir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Clock } from './clock.js';
import { Collector, type CollectorStats } from './collectors/collector.js';
import { HARNESSES, rootsOf } from './collectors/registry.js';
import { ReadThreads, threadsFor } from './collectors/read-threads.js';
import { RescanPlan, WatchPlan } from './collectors/schedule.js';
import { ConfigError, splitAddress, type Config } from './config/load.js';
import type { Logger } from './log.js';
import { ExportLog, otlpOptions, otlpResource, shownUrl, type OtlpOptions } from './metrics/otlp.js';
import type { Push } from './metrics/otlp-push.js';
import { exposition, RenderedExposition } from './metrics/prometheus.js';
import { SelfMetrics } from './metrics/self.js';
import type { MetricsServer } from './http/server.js';
import type { WebConfig } from './http/web-config.js';
import { snapshot, type Family, type SnapshotOptions } from './metrics/snapshot.js';
import { spendByDay } from './store/ledger.js';
import { liveSessions, type LiveSession } from './store/live.js';
import { HookSource } from './hooks/source.js';
import { configuredPrices, type PriceTable } from './pricing/prices.js';
import { IDLE_WATCH_MS, ProcessMonitor } from './process/monitor.js';
import { descendantsOf, noTableNote, platformTable, withoutDemos } from './process/table.js';
import { SessionStore } from './store/store.js';
import { StateDb } from './state/db.js';
import { readRecordedStatus, recordedStatusMtime, statusFile } from './state/statusline.js';
import { viewRecords, type SessionRecord } from './view/records.js';
import { summaryOf, type Summary } from './view/summary.js';
import { VERSION } from './version.js';

// How often time-based values are brought up to date in the served exposition: the process's
// own metrics, and session statuses that change with time alone (done → idle, stale). The process
// monitor's look for new agents, with none running, has the same period (IDLE_WATCH_MS), and each
// may run half a period early: they fall in step, one wake for both (`clock`).
const TICK_MS = IDLE_WATCH_MS;
const EARLY_MS = TICK_MS / 2;

export interface AgentOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Start over with an empty state database (`--reset-state`). */
  resetState?: boolean;
  /** Start from the state database but never write it, nor put away a spool moved aside (a viewer beside a running exporter). */
  privateState?: boolean;
  /** Only the processes this one started are looked at (the demo's agents, not the user's). */
  ownProcessesOnly?: boolean;
  /**
   * A report's own read (`report` with no state database; with `privateState`): only the usage a
   * report sums, read by `readUsage`: no process table, hook spool or statusline; only `harness`'s
   * collector where one is asked for; on every core (unless `readThreads` is 0), with `threads` where
   * they were started before (`cli/run.ts`).
   */
  reportRead?: { harness?: string; threads?: ReadThreads };
}

export class Exporter {
  readonly store: SessionStore;
  readonly collectors = new Map<string, Collector<unknown>>();
  readonly startedAt = Date.now();
  private readonly db: StateDb;
  private readonly snapshotOptions: SnapshotOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly otlp?: { options: OtlpOptions; log: ExportLog };
  private server?: MetricsServer;
  private push?: Push;
  /** What is watched, where `watch` is on (`startWatching`). */
  private watch?: WatchPlan;
  private readonly rescans: RescanPlan<Collector<unknown>>;
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private webWatcher?: { close(): void };
  private readonly self = new SelfMetrics();
  /**
   * The families as of the store's last change (`onChange`): what /metrics renders and what each
   * OTLP push sends, one snapshot for both.
   */
  private servedFamilies?: Family[];
  /** What /metrics serves: the families and the process's own metrics, rendered when they change. */
  private readonly served = new RenderedExposition(() =>
    exposition([...this.currentFamilies(), ...this.self.current()]),
  );
  /** The live page's JSON, rendered when what /metrics serves changes (statuses change with time alone too). */
  private readonly views = {
    sessions: new RenderedExposition(() => `${JSON.stringify(this.records())}\n`),
    summary: new RenderedExposition(() => `${JSON.stringify(this.summary())}\n`),
  };
  private readonly rendered = [this.served, this.views.sessions, this.views.summary];
  private ready = false;
  /**
   * What runs on a clock: the sample every TICK_MS, and, once following, the process scan when the
   * monitor says (every second while an agent runs or after a session file changed; with none, at
   * its next cheap look for one or read of the whole table). Processes come and go without writing
   * anything: the monitor is asked, not told.
   */
  private readonly clock = new Clock([
    { next: () => this.sampleDueAt, earlyMs: EARLY_MS, run: (now, lateMs) => this.sample(now, lateMs) },
    {
      next: () => (this.following ? (this.monitor?.nextDue() ?? Infinity) : Infinity),
      earlyMs: EARLY_MS,
      run: (now) => {
        if (this.monitor?.due(now, EARLY_MS)) void this.scanProcesses();
      },
    },
  ]);
  /** When the next sample is due: never before `start` (`top` follows, and serves nothing). */
  private sampleDueAt = Infinity;
  /** Following (after the first scan): the process table is read on the clock. */
  private following = false;
  private readonly monitor?: ProcessMonitor;
  /** Said by `sessions` and the page where the process table is on but there is none here (Windows). */
  readonly processNote?: string;
  /** The modification time of the statusline command's file when it was last read. */
  private statusMtime?: number;
  /** The hook spool in the state folder: what harnesses' hooks reported, where they are set up. */
  private readonly hooks: HookSource;
  /** Threads reading the history for the first time, until the first scan is done. */
  private readThreads?: ReadThreads;
  /** The first read of this process is to come (marked in the state database: `report` says it is partial meanwhile). */
  private firstRead: boolean;

  constructor(
    readonly config: Config,
    private readonly log: Logger,
    opts: AgentOptions = {},
  ) {
    const env = (this.env = opts.env ?? process.env);
    const home = opts.home ?? env.HOME ?? homedir();
    this.db = openState(config.stateDir, { reset: opts.resetState, privateCopy: opts.privateState });
    this.store = new SessionStore(
      this.db,
      priceTable(config),
      config.project,
      { model: config.model.max, tool: config.tool.max },
      config.ledger.days,
      opts.reportRead !== undefined,
    );
    // Told by the exporter that owns the state database, not by a view of a copy of it (`top`).
    if (this.store.projectNamingWas !== undefined && !opts.privateState) {
      log.warn(
        'project.mode or project.aliases changed: what was counted keeps the project label it was counted under, sessions first seen from now on take the new one (--reset-state relabels everything and starts every counter from 0)',
        {
          was: this.store.projectNamingWas,
          now: JSON.stringify({ mode: config.project.mode, aliases: config.project.aliases }),
        },
      );
    }
    // The one signal of a change to what is served: every rendered body and the pushes' snapshot follow it.
    this.store.onChange(() => {
      this.servedFamilies = undefined;
      for (const r of this.rendered) r.invalidate();
    });
    this.hooks = new HookSource(config.stateDir, this.store, { putAway: !opts.privateState });
    this.firstRead = !opts.privateState;
    // A history read for the first time is read on threads too (the main thread reads as well: one
    // core is its); a report's read, all that process does, on every core.
    const report = opts.reportRead;
    const threads = threadsFor(config.readThreads, report !== undefined);
    if (threads > 0 && !this.db.tracksFiles()) this.readThreads = report?.threads ?? new ReadThreads(threads);
    else report?.threads?.close();
    // A report's own read hands its threads every backlog, however small: they were started while it
    // loaded, and are reading before its main thread is (a first read's, started at its first
    // backlog, cost about what they saved below 256 MB).
    const readAhead = { threads: this.readThreads, minBytes: report?.threads ? 0 : undefined };
    for (const [name, harness] of Object.entries(HARNESSES)) {
      const section = config.collectors[name]!;
      if (!section.enabled || (report?.harness !== undefined && name !== report.harness)) continue;
      const { roots, configured } = rootsOf(harness, section.roots, env, home);
      this.collectors.set(name, new Collector(name, harness, roots, this.store, this.db, log, configured, readAhead));
    }
    if (config.processes.enabled && !report) {
      const platform = platformTable(config.processes.procRoot);
      const table = platform && (opts.ownProcessesOnly ? descendantsOf(platform, process.pid) : withoutDemos(platform));
      if (!table) {
        this.processNote = noTableNote();
        log.info(this.processNote, { platform: process.platform });
      }
      const openFileSession = Object.fromEntries(
        Object.values(HARNESSES)
          .filter((h) => h.sessionOfOpenFile)
          .map((h) => [h.harness, h.sessionOfOpenFile!]),
      );
      if (table) this.monitor = new ProcessMonitor(table, this.store, openFileSession, log);
    }
    this.rescans = new RescanPlan([...this.collectors.values()], config.rescanSeconds * 1000);
    this.snapshotOptions = {
      status: {
        doneForMs: config.sessions.doneForSeconds * 1000,
        staleAfterMs: config.sessions.staleAfterSeconds * 1000,
      },
      activeWindowMs: config.sessions.activeWindowSeconds * 1000,
      perSessionMax: config.sessions.perSessionMax,
      version: VERSION,
    };
    const push = otlpOptions(config.otlp, env);
    if (push) {
      this.otlp = { options: push, log: new ExportLog(log, push.url) };
      this.snapshotOptions.otlpExports = this.otlp.log.counts;
    }
  }

  /** Reads every collector (or `only` those), then the process table (which joins processes to what was read). */
  async scanAll(only = [...this.collectors.values()]): Promise<void> {
    const first = this.firstRead;
    this.firstRead = false;
    if (first) this.store.markFirstRead(true);
    this.readStatusline();
    for (const c of only) await this.scan(c);
    if (first && !this.stopping) this.store.markFirstRead(false);
    this.readThreads?.close();
    this.readThreads = undefined;
    this.readHooks();
    // While following, the process table is read on the clock.
    if (!this.following) await this.scanProcesses();
  }

  /**
   * A report's read (`reportRead`): every collector once, the usage alone (no process table, hooks
   * or statusline). `together`: the collectors are read at once, not one after the other: while
   * the threads read one's backlog, the main thread reads another's files itself (no events handed
   * over, that reader compiled in one thread only), and the threads go on to the next backlog.
   */
  async readUsage(together = false): Promise<void> {
    const collectors = [...this.collectors.values()];
    if (together) await Promise.all(collectors.map((c) => this.scan(c)));
    else for (const c of collectors) await this.scan(c);
    this.readThreads?.close();
    this.readThreads = undefined;
  }

  /** Reads what changed for one collector (`search`: as for `Collector.scan`, whose commit at its end tells the outputs). */
  private async scan(c: Collector<unknown>, search = true): Promise<void> {
    // Stopping: the state database is closed, or about to be (`stop` waits for the scans running, not
    // for a read a burst put off, or a rescan's next collector).
    if (this.stopping) return;
    await c.scan(search);
    // While following: a registry rewritten (a permission asked) is a status now, not at the next process scan.
    if (this.following && this.monitor?.registriesChanged()) await this.scanProcesses();
  }

  /**
   * Claude Code's usage-limit windows as the `statusline` command last recorded them (in the state
   * folder), when it recorded anything new: as the file changes (the state folder is watched), and
   * at every rescan and sample, where watching is off or missed it.
   */
  private readStatusline(): void {
    const mtime = recordedStatusMtime(this.config.stateDir);
    if (mtime === undefined || mtime === this.statusMtime) return;
    this.statusMtime = mtime;
    for (const l of readRecordedStatus(this.config.stateDir)?.limits ?? []) {
      this.store.setUsageLimit({
        harness: 'claude-code',
        window: l.window,
        usedRatio: l.usedRatio,
        ...(l.resetsAt !== undefined ? { resetsAt: l.resetsAt } : {}),
      });
    }
    this.store.touch();
  }

  /** Reads what hooks appended to the spool; what is served changes with a session's hook state. */
  private readHooks(): void {
    if (this.hooks.read()) this.store.touch();
  }

  /**
   * Reads the process table, which joins live processes to what the collectors read. An agent no
   * session is joined to may have started one whose files only a search finds (Aider's, which
   * the rescan searches for): they are looked for where it works, and read, and watched, at once.
   */
  private async scanProcesses(): Promise<void> {
    if (!this.monitor) return;
    if (this.monitor.scan()) {
      // A turn the scan ended (its agent gone) is counted: served once committed (Counter.committed),
      // the commit telling the outputs; a change of the process view alone is told as it is.
      const committed = !this.stopping && this.store.commitIfChanged();
      if (!committed) this.store.touch();
    }
    const found = new Set<Collector<unknown>>();
    for (const { harness, cwd } of this.monitor.unplaced) {
      for (const c of this.collectors.values()) if (c.harness === harness && c.lookNear(cwd)) found.add(c);
    }
    if (found.size === 0) return;
    this.watch?.lookAgain();
    await Promise.all([...found].map((c) => this.scan(c, false)));
  }

  /** The families as of the last change (`servedFamilies`). */
  private currentFamilies(): Family[] {
    return (this.servedFamilies ??= this.families());
  }

  families(now = Date.now()): Family[] {
    const stats = new Map<string, CollectorStats>([...this.collectors].map(([n, c]) => [n, c.stats]));
    return snapshot(this.store, stats, this.snapshotOptions, now);
  }

  sessions(now = Date.now()): LiveSession[] {
    return liveSessions(this.store, now, this.snapshotOptions);
  }

  /** What every viewer lists: the live sessions, then the agents no session file is joined to; `live` as for `summary`. */
  records(now = Date.now(), live = this.sessions(now)): SessionRecord[] {
    return viewRecords(live, this.store.processes.unowned, this.config.project.mode);
  }

  /** The figures above the sessions; `live`: the sessions of `now`, where the caller has them already. */
  summary(now = Date.now(), live = this.sessions(now)): Summary {
    return summaryOf(this.store, live, now, (first, last) =>
      spendByDay((from, to) => this.store.ledgerRows(from, to), first, last),
    );
  }

  /**
   * Serves /metrics, pushes OTLP if configured, and keeps reading as files change. Resolves with
   * the base URL it serves at once the first scan is done.
   */
  async start(): Promise<{ url: string }> {
    const webModule = this.config.webConfigFile ? await import('./http/web-config.js') : undefined;
    const web = webModule && this.webConfig(webModule.loadWebConfig);
    const [host, port] = splitAddress(this.config.listenAddress);
    // The server (and the live page) only for `serve`: `once` never loads them.
    const { startServer } = await import('./http/server.js');
    this.server = await startServer({
      host,
      port,
      path: this.config.metricsPath,
      version: VERSION,
      exposition: this.served,
      ready: () => this.ready,
      log: this.log,
      web,
      allowedHosts: this.config.web.allowedHosts,
      views: this.views,
      processNote: this.processNote,
    });
    const server = this.server;
    if (web) this.webWatcher = webModule.watchWebConfig(this.config.webConfigFile, web, (c) => server.setWebConfig(c));
    const address = server.server.address() as AddressInfo;
    const shown =
      address.family === 'IPv6' ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
    this.log.info('listening', { address: shown, path: this.config.metricsPath, tls: Boolean(web?.tls) });
    if (!host || host === '0.0.0.0' || host === '::') {
      this.log.warn(
        'listening on every interface: whoever reaches this machine can read the metrics, which name your projects; ' +
          'bind to 127.0.0.1 or set up TLS and basic auth with --web.config.file',
        { listenAddress: this.config.listenAddress },
      );
    }

    this.sample(Date.now(), 0);
    this.clock.schedule();

    await this.follow();
    // Pushes start once the first scan is done: the first one carries its totals, never a part.
    if (this.otlp) {
      const inputs = () => ({
        families: this.currentFamilies(),
        requestTokens: this.store.committedRequestTokens.values(),
        providerOf: (m: string) => this.store.prices.provider(m),
      });
      const { startPush } = await import('./metrics/otlp-push.js');
      this.push = await startPush(inputs, this.otlp.options, this.otlp.log, {
        otel: this.config.otel,
        resource: otlpResource(this.config, this.env, VERSION),
        env: this.env,
        startMs: this.startedAt,
        state: this.db,
      });
      this.log.info('pushing OTLP', {
        url: shownUrl(this.otlp.options.url),
        protocol: this.otlp.options.protocol,
        intervalMs: this.otlp.options.intervalMs,
      });
    }
    this.ready = true;
    return { url: `${web?.tls ? 'https' : 'http'}://${shown}` };
  }

  /** Reads everything once, then keeps reading as files change (on changes and every rescan). */
  async follow(): Promise<void> {
    // The readers of the harnesses found are loaded first: loading one mid-scan would let the
    // watchers' first listing of every folder run in the middle of the scan.
    await Promise.all([...this.collectors.values()].map((c) => c.loadReader()));
    // Watching starts first, so that nothing written during the first scan waits for a rescan.
    if (this.config.watch) this.startWatching();
    await this.scanAll();
    this.log.info('first scan done', { collectors: [...this.collectors.keys()], sessions: this.store.sessions.size });
    this.db.favourMemory();
    this.rescans.start(this.watch?.watched ?? new Set(), performance.now());
    this.scheduleRescan();
    this.following = true;
    this.clock.schedule();
  }

  /** The next rescan (`RescanPlan`: which collectors are due, and how long each waits next). */
  private scheduleRescan(): void {
    this.timer = setTimeout(() => {
      const round = this.rescans.begin(performance.now(), this.watch?.takeFailed() ?? false);
      // Every period, however long the rescans wait: a folder that appeared is read at once.
      this.watch?.lookAgain();
      void this.scanAll(round.due).finally(() => {
        this.rescans.end(round, this.watch?.watched ?? new Set(), this.watch?.failing ?? false);
        if (!this.stopping) this.scheduleRescan();
      });
    }, this.rescans.periodMs);
    this.timer.unref();
  }

  /** The process's own metrics, and the statuses that change with time alone, brought up to date. */
  private sample(now: number, lateMs: number): void {
    this.sampleDueAt = now + TICK_MS;
    this.self.sample(lateMs);
    this.readStatusline();
    this.store.touch();
  }

  /**
   * The web configuration file, read; a bad one stops start-up naming the file and the key. Its
   * module (YAML, a watcher) is loaded only when such a file is configured.
   */
  private webConfig(loadWebConfig: (path: string) => WebConfig): WebConfig {
    const path = this.config.webConfigFile;
    try {
      return loadWebConfig(path);
    } catch (e) {
      throw new ConfigError(`webConfigFile (${path}): ${(e as Error).message}`);
    }
  }

  /** Watching starts (`WatchPlan`): a collector whose files changed is read, the process monitor woken first. */
  private startWatching(): void {
    this.watch = new WatchPlan([...this.collectors.values()], {
      read: (c) => void this.scan(c, false),
      changed: () => {
        // A session file changed: its agent (perhaps one just started) is looked for at once.
        this.monitor?.wake();
        if (this.following && this.clock.later(this.monitor?.nextDue() ?? Infinity)) this.clock.schedule();
      },
      own: new Map([
        [this.hooks.file, () => this.readHooks()],
        [statusFile(this.config.stateDir), () => this.readStatusline()],
      ]),
      searchesWatched: this.monitor !== undefined,
      failed: (e) => this.log.warn('watch error', { error: String(e) }),
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.webWatcher?.close();
    // A change seen while the watchers close schedules no scan again.
    this.clock.stop();
    this.watch?.close();
    // A scan under way finishes (and commits) before the database closes.
    await Promise.all([...this.collectors.values()].map((c) => c.idle()));
    this.store.commit();
    for (const r of this.rendered) r.close();
    await new Promise<void>((r) => {
      if (!this.server) return r();
      this.server.server.close(() => r());
      this.server.server.closeAllConnections();
    });
    await this.push?.shutdown().catch((e: unknown) => this.log.warn('metrics shutdown', { error: String(e) }));
    this.db.close();
  }
}

/** The state database; a state folder that cannot be used stops start-up naming the setting. */
function openState(dir: string, opts: { reset?: boolean; privateCopy?: boolean }): StateDb {
  try {
    return new StateDb(dir, opts);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const { code, message } = e as NodeJS.ErrnoException;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'is a file, not a folder: '
        : ['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_READONLY'].includes(code ?? '')
          ? 'cannot be written: '
          : '';
    throw new ConfigError(`stateDir (${dir}) ${why}${message}`);
  }
}

/** The bundled prices with the override file's; a bad file stops start-up naming the file and the model. */
function priceTable(config: Config): PriceTable {
  try {
    return configuredPrices(config.pricing.overridesFile);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}
