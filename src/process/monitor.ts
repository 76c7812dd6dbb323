// The process scan: lists the agent processes, joins them to sessions, measures their CPU and
// memory, and hands the store a new view of it all (scrapes read that view, never /proc). A
// session whose process died during an open turn has that turn counted once as interrupted.

import { existsSync } from 'node:fs';
import type { Logger } from '../log.js';
import type { ProcessTotals, ProcessView, UnownedAgent } from '../store/processes.js';
import type { SessionStore } from '../store/store.js';
import { UNKNOWN_PROJECT } from '../session/project.js';
import type { HarnessId, HookState, ProcessState, Session } from '../session/types.js';
import { HARNESSES } from '../session/vocabulary.js';
import { attribute, type Agent, type AttributionInput, type ProcessFacts } from './attribute.js';
import { HARNESS_PROCESSES, harnessOf, isDaemon } from './harnesses.js';
import type { Proc, ProcessTable } from './table.js';

/** An agent no session is joined to is working while its process tree uses more CPU than this (cores). */
export const CPU_BUSY_RATIO = 0.15;

/**
 * The whole table is read at least this often: what the cheap watch for new processes cannot see
 * (a process that became an agent by exec long after it started, a pid reused between two looks),
 * or, where there is no cheap watch (macOS's `ps`), anything at all. An agent that writes a
 * session file is read at once (`wake`): five minutes is for one that writes nothing. A read of
 * the whole table was the largest part of what an idle exporter cost: 15-30 ms of CPU on a
 * desktop of 400 processes (a `stat` and an `exe` link each), once a minute more than all else.
 */
export const FULL_SCAN_MS = { watched: 300_000, unwatched: 5_000 };

/** While an agent runs, it is scanned this often: its CPU, tools and status change. */
export const SCAN_MS = 1_000;

/**
 * With no agent running, how often the cheap watch lists the pids: a new agent is seen within this,
 * or at once when it writes a session file (`wake`; most write one as they start, or at their first
 * prompt). A listing each second was most of what an idle exporter cost; one every 5 s, with its
 * wake, still a third.
 */
export const IDLE_WATCH_MS = 10_000;

export class ProcessMonitor {
  /** CPU seconds per process (by pid and start) at the previous scan, for the CPU used since. */
  private previous = new Map<string, number>();
  private previousAt = 0;
  /** What the previous scan learnt of each process (by pid and start) that stays the same for its life. */
  private facts = new Map<string, ProcessFacts>();
  private readonly harnessesSeen = new Set<HarnessId>();
  private failing = false;
  /** What the previous view held, to tell whether a scan changed anything. */
  private previousView = '';
  /** Whether the last scan found an agent process: it is then scanned every SCAN_MS. */
  private agentsAlive = false;
  private scannedAt = -Infinity;
  /** When the whole table was last read, and what it held (with what scans since re-read of it). */
  private fullAt = -Infinity;
  private procs: Proc[] = [];
  /** The pids of the agents' process trees at the last scan: what a scan between full ones re-reads. */
  private trees = new Set<number>();
  /** Asked for by `wake`: a session file changed, whose agent may have just started. */
  private woken = false;
  private wokenAt = -Infinity;
  /** The pids the cheap watch has seen, and those new at its last look (looked at once more: a fork execs the agent a moment later). */
  private watchedPids = new Set<number>();
  private lastNew: number[] = [];
  private watchedAt = -Infinity;
  /**
   * The agents of the last scan that no session is joined to, with the folder each works in: where
   * its harness's files are found by a search, they are looked for there (`Collector.lookNear`).
   */
  unplaced: { harness: HarnessId; cwd: string }[] = [];
  /** The registries the last scan joined, as JSON. */
  private registriesJoined = '[]';
  /**
   * Sessions whose tool child was seen running, with what they then waited on (their pending calls
   * and last hook event): while that stays the same, the call is past its approval.
   */
  private ran = new Map<string, string>();

  constructor(
    private readonly table: ProcessTable,
    private readonly store: SessionStore,
    private readonly openFileSession: AttributionInput['openFileSession'],
    private readonly log: Logger,
  ) {
    store.watchProcesses();
  }

  /**
   * Whether a scan is due now (asked at `nextDue`). While an agent runs, always: its CPU, tools and
   * status change. Otherwise only when something may have started one: a new process whose command
   * line is an agent's (the cheap watch, every IDLE_WATCH_MS: a listing of pids, and only new
   * processes read), a session file that changed (`wake`), or FULL_SCAN_MS gone by. `earlyMs`: how
   * much sooner than that the watch or the full read may run, with a wake that happens anyway.
   */
  due(now = Date.now(), earlyMs = 0): boolean {
    if (this.agentsAlive || this.woken) return true;
    if (now + earlyMs - this.fullAt >= this.fullScanMs()) return true;
    if (!this.table.pids || !this.table.procs || now + earlyMs - this.watchedAt < IDLE_WATCH_MS) return false;
    return this.table.procs(this.newPids(now)).some((p) => harnessOf(p.argv) !== undefined);
  }

  /**
   * When `due` is next worth asking (ms since the epoch), so that an idle exporter wakes only then,
   * not every second: a SCAN_MS after the last scan while an agent runs, or after a wake; else at
   * the next listing of pids or read of the whole table.
   */
  nextDue(): number {
    const watch = this.table.pids && this.table.procs ? this.watchedAt + IDLE_WATCH_MS : Infinity;
    return Math.min(
      this.fullAt + this.fullScanMs(),
      watch,
      this.agentsAlive ? this.scannedAt + SCAN_MS : Infinity,
      this.woken ? this.wokenAt + SCAN_MS : Infinity,
    );
  }

  private fullScanMs(): number {
    return this.table.pids ? FULL_SCAN_MS.watched : FULL_SCAN_MS.unwatched;
  }

  /**
   * The pids new since the last listing, and those new at the one before (looked at once more: a
   * fork execs the agent a moment later).
   */
  private newPids(now: number): number[] {
    this.watchedAt = now;
    const pids = this.table.pids!();
    const fresh = pids.filter((pid) => !this.watchedPids.has(pid));
    const look = [...new Set([...this.lastNew, ...fresh])];
    this.watchedPids = new Set(pids);
    this.lastNew = fresh;
    return look;
  }

  /**
   * Whether a registry (`~/.claude/sessions/<pid>.json`) says something else than when the table was
   * last read: the process was asked for a permission or an answer, or given one. Its status is
   * the join's, so the table is read again at once, not up to a second later.
   */
  registriesChanged(): boolean {
    return JSON.stringify(this.store.registryEntries()) !== this.registriesJoined;
  }

  /**
   * A session file changed: the next scan, within SCAN_MS, reads the whole table (a new session's
   * agent is joined at once).
   */
  wake(now = Date.now()): void {
    if (!this.woken) this.wokenAt = now;
    this.woken = true;
  }

  /**
   * One scan; returns whether a session or what statuses are made of changed (what is served must be
   * rendered again: the measured CPU and memory alone do not say so). Never throws: a failed scan
   * keeps the previous view.
   */
  scan(now = Date.now()): boolean {
    try {
      const changed = this.scanOnce(now);
      this.failing = false;
      return changed;
    } catch (e) {
      // Said once, not every second, until a scan succeeds again.
      if (!this.failing) this.log.warn('process scan failed', { error: String(e) });
      this.failing = true;
      // Tried again when a scan would next be due, not at once and again and again.
      this.scannedAt = this.fullAt = now;
      this.woken = false;
      return false;
    }
  }

  private scanOnce(now: number): boolean {
    const store = this.store;
    const procs = this.readTable(now);
    const registries = store.registryEntries();
    this.registriesJoined = JSON.stringify(registries);
    // A hosted session (an editor extension's task) is no process's: not even its harness's CLI's in its folder.
    const sessions = [...store.sessions.values()].filter((s) => !s.archived && !s.hosted);
    const { agents, claims, facts } = attribute({
      table: this.table,
      procs,
      registries,
      sessions,
      hooks: store.hooks,
      openFileSession: this.openFileSession,
      facts: this.facts,
    });
    this.facts = facts;
    this.agentsAlive = agents.length > 0;
    this.trees = new Set(agents.flatMap((a) => a.tree.map((p) => p.pid)));
    this.scannedAt = now;
    this.woken = false;

    // CPU over the interval since the last scan; a process new since then, over its life so far.
    const current = new Map<string, number>();
    const interval = this.previousAt ? (now - this.previousAt) / 1000 : 0;
    const cpuOf = (agent: Agent): number => {
      let used = 0;
      let span = 0;
      for (const p of agent.tree) {
        const id = `${p.pid}@${p.startTicks}`;
        current.set(id, p.cpuSeconds);
        const before = this.previous.get(id);
        used += p.cpuSeconds - (before ?? 0);
        span = Math.max(span, before === undefined ? (now - p.startedAt) / 1000 : interval);
      }
      return span > 0 ? Math.max(0, used / span) : 0;
    };
    const measured = new Map(
      agents.map((a) => [a, { cpu: cpuOf(a), rss: a.tree.reduce((n, p) => n + this.table.residentBytes(p.pid), 0) }]),
    );
    this.previous = current;
    this.previousAt = now;

    const owners = new Map<string, ProcessState>();
    const ran = new Map<string, string>();
    for (const [key, c] of claims) {
      const s = store.sessions.get(key);
      if (!s) continue;
      const m = measured.get(c.agent)!;
      const id = key.slice(key.indexOf('/') + 1);
      // Whether a tool runs is known only where tool processes' environment can be read.
      const hasMarker = this.table.environment && HARNESS_TOOL_ENV.has(c.agent.harness);
      const hook = store.hooks.get(key);
      const tools = c.agent.tools.filter((t) => t.session === undefined || t.session === id);
      let toolRunning = hasMarker && tools.some((t) => t.marked);
      // A tool that ran for what the session still waits on was approved: gone before the harness
      // recorded its end, the agent is being torn down (a hang-up kills the tool first), not asking again.
      const waitsOn = waitingOn(s, hook);
      if (waitsOn !== undefined && (toolRunning || this.ran.get(key) === waitsOn)) {
        ran.set(key, waitsOn);
        toolRunning = true;
      }
      // A child carrying the session id that started after the session's last hook event ran for
      // what that event waits on (approving fires nothing): the only word on a running tool where
      // the session id alone marks tools (Claude Code, Copilot CLI), as Claude Code's MCP servers,
      // and tools left running in the background, started before. Only while it runs: another
      // child the agent starts for a moment (a status line command) must not hold it.
      if (hook !== undefined && tools.some((t) => t.session !== undefined && t.startedAt > hook.at)) toolRunning = true;
      // A tool running after the answer that seemed to end the turn: the turn went on (Gemini CLI).
      if (toolRunning) store.toolRanAfterAnswer(s);
      owners.set(key, {
        attribution: c.attribution,
        pid: c.agent.proc.pid,
        startTicks: c.agent.proc.startTicks,
        cpuRatio: m.cpu,
        residentBytes: m.rss,
        ...(c.registry?.status
          ? {
              status: c.registry.status,
              waitingFor: c.registry.waitingFor,
              ...(c.registry.statusAt ? { statusAt: c.registry.statusAt } : {}),
            }
          : {}),
        ...(hasMarker || toolRunning ? { toolRunning } : {}),
      });
    }
    this.ran = ran;
    const owning = new Set([...claims].filter(([key]) => owners.has(key)).map(([, c]) => c.agent));
    // A front end of a session another process runs (Codex's TUI, whose app-server owns the
    // thread) and an idle daemon are not sessions of their own.
    const ownedFolders = new Set(
      [...owners.keys()].map((key) => {
        const s = store.sessions.get(key)!;
        return `${s.harness}\0${s.cwd}`;
      }),
    );
    const standalone = (a: Agent) =>
      !owning.has(a) && !ownedFolders.has(`${a.harness}\0${a.cwd}`) && !isDaemon(a.harness, a.proc.argv);
    const alone = agents.filter(standalone);
    this.unplaced = alone.flatMap((a) => (a.cwd === undefined ? [] : [{ harness: a.harness, cwd: a.cwd }]));
    const unowned: UnownedAgent[] = alone.map((a) => {
      const m = measured.get(a)!;
      return {
        harness: a.harness,
        project: a.cwd ? store.projectOf(a.cwd) : UNKNOWN_PROJECT,
        busy: m.cpu >= CPU_BUSY_RATIO,
        cpuRatio: m.cpu,
        residentBytes: m.rss,
        pid: a.proc.pid,
      };
    });
    // A harness whose processes all ended drops to 0 rather than vanishing.
    const totals = new Map<HarnessId, ProcessTotals>(
      [...this.harnessesSeen].map((h) => [h, { processes: 0, cpuRatio: 0, residentBytes: 0 }]),
    );
    for (const a of agents) {
      this.harnessesSeen.add(a.harness);
      const t = totals.get(a.harness) ?? { processes: 0, cpuRatio: 0, residentBytes: 0 };
      const m = measured.get(a)!;
      totals.set(a.harness, {
        processes: t.processes + 1,
        cpuRatio: t.cpuRatio + m.cpu,
        residentBytes: t.residentBytes + m.rss,
      });
    }
    const orphansEnded = this.endOrphans(owners, procs, now);
    const ended = this.settleAnswers(owners, now) || orphansEnded;
    const view: ProcessView = { visible: VISIBLE, elsewhere: this.elsewhere(owners), owners, unowned, totals };
    store.setProcessView(view);
    // What statuses are made of: its change is served at once. The CPU and memory measured change
    // on nearly every scan while an agent runs; they are served at the next sample (every 5–10 s), so
    // that the exposition is not rendered again every second for them alone.
    const seen = JSON.stringify([
      [...owners].map(([key, o]) => [key, { ...o, cpuRatio: 0, residentBytes: 0 }]),
      unowned.map((a) => ({ ...a, cpuRatio: 0, residentBytes: 0 })),
      [...totals].map(([h, t]) => [h, t.processes]),
      [...view.elsewhere],
    ]);
    const changed = ended || seen !== this.previousView;
    this.previousView = seen;
    return changed;
  }

  /**
   * The process table as this scan sees it. The whole table where something may be new to it (a
   * wake, no agent running, FULL_SCAN_MS gone by, no cheap watch); else, each second while agents
   * run, only the agents' process trees and the processes new since the last listing are read (a
   * tool child started, an agent killed, are seen as soon): the rest is as the last full read
   * found it, less the pids gone since. Every process is no longer read each second for three
   * agents sitting idle.
   */
  private readTable(now: number): Proc[] {
    if (
      this.woken ||
      !this.agentsAlive ||
      now - this.fullAt >= this.fullScanMs() ||
      !this.table.pids ||
      !this.table.procs
    ) {
      this.procs = this.table.list();
      this.fullAt = now;
      // What the cheap watch would find new is in this read: it looks again from here.
      if (this.table.pids) {
        this.watchedPids = new Set(this.table.pids());
        this.lastNew = [];
        this.watchedAt = now;
      }
      return this.procs;
    }
    const look = new Set([...this.trees, ...this.newPids(now)]);
    const read = this.table.procs([...look]);
    this.procs = [...this.procs.filter((p) => this.watchedPids.has(p.pid) && !look.has(p.pid)), ...read];
    return this.procs;
  }

  /**
   * Sessions left open (a turn or a call) that no process here owns, whose folder is not on this
   * machine: files synced or mounted from another machine, whose processes cannot be seen here.
   */
  private elsewhere(owners: ReadonlyMap<string, ProcessState>): Set<string> {
    const out = new Set<string>();
    const exists = new Map<string, boolean>();
    for (const [key, s] of this.store.sessions) {
      if (!s.cwd || owners.has(key) || (s.turnStartedAt === undefined && s.pendingTools.size === 0)) continue;
      let here = exists.get(s.cwd);
      if (here === undefined) exists.set(s.cwd, (here = existsSync(s.cwd)));
      if (!here) out.add(key);
    }
    return out;
  }

  /**
   * A session whose last owner process is gone (not merely joined elsewhere): an open turn was
   * cut off, counted once as interrupted. Returns whether a session changed.
   */
  private endOrphans(owners: ReadonlyMap<string, ProcessState>, procs: readonly Proc[], now: number): boolean {
    let changed = false;
    const running = new Set(procs.map((p) => `${p.pid}@${p.startTicks}`));
    for (const [key, s] of this.store.sessions) {
      const proc = owners.get(key);
      if (proc?.pid !== undefined && proc.startTicks !== undefined) {
        if (s.owner?.pid === proc.pid && s.owner.startTicks === proc.startTicks) continue;
        this.store.setOwner(key, { pid: proc.pid, startTicks: proc.startTicks }, now);
      } else if (!s.owner || running.has(`${s.owner.pid}@${s.owner.startTicks}`)) {
        continue;
      } else {
        this.store.setOwner(key, undefined, now);
      }
      changed = true;
    }
    return changed;
  }

  /**
   * Turns an answer ended unsure (Gemini CLI's, whose calls are written only once they ran) that
   * did end there: where no agent runs the session (its file is all there is), or its hook says
   * the turn finished. A dead owner's are settled as it is let go (SessionStore.setOwner).
   */
  private settleAnswers(owners: ReadonlyMap<string, ProcessState>, now: number): boolean {
    let changed = false;
    for (const [key, s] of this.store.sessions) {
      const last = s.lastTurn;
      if (!last?.unsure) continue;
      const hook = this.store.hooks.get(key);
      const finished = hook !== undefined && hook.at >= last.endedAt && (hook.phase === 'stop' || hook.phase === 'end');
      if ((!owners.has(key) && !s.owner) || finished) changed = this.store.settleTurn(s, 'completed', now) || changed;
    }
    return changed;
  }
}

// A harness with no process of its own (an editor extension, archives only) is never seen running:
// its sessions keep the status their files give.
const VISIBLE: ReadonlySet<HarnessId> = new Set(HARNESSES.filter((h) => HARNESS_PROCESSES[h].names.length > 0));

/**
 * What a session waits on, where a tool may run for it: its pending calls and its last hook event
 * (a tool's end, or the next call, changes it). Undefined where nothing is pending: a tool child
 * then says all there is (Gemini CLI records its calls only once they ended).
 */
function waitingOn(s: Session, hook: HookState | undefined): string | undefined {
  const calls = [...s.pendingTools.keys()];
  if (calls.length === 0 && hook?.phase !== 'permission' && hook?.phase !== 'tool') return undefined;
  return JSON.stringify([calls.sort(), hook?.at]);
}

const HARNESS_TOOL_ENV = new Set(HARNESSES.filter((h) => HARNESS_PROCESSES[h].toolEnv !== undefined));
