// Joins agent processes to sessions. Exact methods first (the process our hook ran under, the
// harness's registry, a session id in a tool process's environment, a session file held open, a
// session id on the command line);
// then, for an agent none of them placed, the working-directory heuristic, which never takes a
// session an exact method claimed.

import type { Attribution, HarnessId, HookState, RegistryEntry } from '../session/types.js';
import { HARNESS_PROCESSES, harnessOf, isDaemon, runsHook, sessionArgs } from './harnesses.js';
import type { Proc, ProcessTable } from './table.js';

/** An agent process (the topmost of its harness in its tree) with its helper children. */
export interface Agent {
  harness: HarnessId;
  proc: Proc;
  /** The agent and every descendant (MCP servers, shells, tools). */
  tree: Proc[];
  cwd?: string;
  /**
   * Descendants that carry the harness's tool marker (`marked`: every tool carries it) or its
   * session id (so do MCP servers, started with the agent), with the session they name and when
   * they started. Never our hook, which the agent runs on its events.
   */
  tools: { session?: string; marked: boolean; startedAt: number }[];
}

/** What stays the same while a process runs one program: its harness, and the marker variables of its environment once read. */
export interface ProcessFacts {
  harness: HarnessId | undefined;
  env?: Record<string, string>;
}

export interface Claim {
  agent: Agent;
  attribution: Attribution;
  registry?: RegistryEntry;
}

/** What attribution needs to know of the sessions (no file I/O). */
export interface KnownSession {
  harness: HarnessId;
  id: string;
  cwd?: string;
  startedAt: number;
  lastActivityAt: number;
}

export interface AttributionInput {
  table: ProcessTable;
  procs: Proc[];
  registries: Iterable<[HarnessId, RegistryEntry]>;
  /** The last hook event of each session with hooks, by session key: the hook ran under the session's process. */
  hooks?: Iterable<[string, HookState]>;
  sessions: Iterable<KnownSession>;
  /** The session a file held open by a harness's process belongs to, per harness that holds its files open. */
  openFileSession: Partial<Record<HarnessId, (path: string) => string | undefined>>;
  /** The facts the previous scan learnt, by process and program (`pid@start` and image). */
  facts?: ReadonlyMap<string, ProcessFacts>;
}

export interface AttributionResult {
  agents: Agent[];
  /** By session key (`harness/id`). */
  claims: Map<string, Claim>;
  /**
   * The facts of this scan's processes, for the next: an unchanged process table then costs no
   * recognition and no environment read. A process gone is dropped; a pid reused has another start,
   * a process that exec'd another program another image.
   */
  facts: Map<string, ProcessFacts>;
}

// A session may be written a moment before the process that writes it has fully started.
const START_SLACK_MS = 5000;

export function attribute(input: AttributionInput): AttributionResult {
  const { table, procs } = input;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const children = new Map<number, Proc[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const facts = new Map<string, ProcessFacts>();
  const factsOf = (p: Proc): ProcessFacts => {
    const key = `${p.pid}@${p.startTicks}\0${p.image}`;
    let f = facts.get(key);
    if (!f) facts.set(key, (f = input.facts?.get(key) ?? { harness: harnessOf(p.argv) }));
    return f;
  };
  const harnessByPid = new Map<number, HarnessId>();
  for (const p of procs) {
    const h = factsOf(p).harness;
    if (h) harnessByPid.set(p.pid, h);
  }
  /** The nearest process of harness `h` above `p`. */
  const ancestorOf = (p: Proc, h: HarnessId): Proc | undefined => {
    for (let q = byPid.get(p.ppid), hops = 0; q && hops < 64; q = byPid.get(q.ppid), hops++) {
      if (harnessByPid.get(q.pid) === h) return q;
    }
    return undefined;
  };
  const descendants = (root: Proc): Proc[] => {
    const out: Proc[] = [root];
    for (let i = 0; i < out.length && out.length < 10_000; i++) out.push(...(children.get(out[i]!.pid) ?? []));
    return out;
  };

  // Agents: processes of a harness with no process of the same harness above them (a launcher
  // and its worker, a wrapper and its native binary, are one agent).
  const agents = new Map<number, Agent>();
  const envClaims: { agent: Agent; value: string }[] = [];
  const makeAgent = (proc: Proc, harness: HarnessId): Agent => {
    const { toolEnv, sessionEnv } = HARNESS_PROCESSES[harness];
    const agent: Agent = { harness, proc, tree: descendants(proc), cwd: table.cwd(proc.pid), tools: [] };
    agents.set(proc.pid, agent);
    if (toolEnv === undefined && sessionEnv === undefined) return agent;
    // Only the tool processes' environment is read (never the agent's own: it holds API keys),
    // and only the named variables of it: every harness's, so one read serves whichever agent a
    // process runs under.
    for (const p of agent.tree) {
      if (harnessByPid.has(p.pid)) continue;
      const f = factsOf(p);
      const env = (f.env ??= table.environ(p.pid, MARKER_ENV));
      const session = sessionEnv ? env[sessionEnv] || undefined : undefined;
      if (session) envClaims.push({ agent, value: session });
      const marked = toolEnv !== undefined && env[toolEnv] !== undefined;
      if ((marked || session) && !runsHook(p.argv, harness))
        agent.tools.push({ ...(session ? { session } : {}), marked, startedAt: p.startedAt });
    }
    return agent;
  };
  for (const p of procs) {
    const h = harnessByPid.get(p.pid);
    if (h && !ancestorOf(p, h)) makeAgent(p, h);
  }
  const agentOf = (p: Proc, harness: HarnessId): Agent => {
    for (let q: Proc | undefined = p, hops = 0; q && hops < 64; q = byPid.get(q.ppid), hops++) {
      const a = agents.get(q.pid);
      if (a && a.harness === harness) return a;
    }
    return makeAgent(p, harness);
  };

  const claims = new Map<string, Claim>();
  const claim = (harness: HarnessId, id: string, c: Claim) => {
    const key = `${harness}/${id}`;
    if (!claims.has(key)) claims.set(key, c);
  };

  // hook: the harness ran our hook under the process that runs the session (its parent, or a shell
  // or a worker of the agent); a pid reused since belongs to a process started after the event.
  // A session ended is no longer its process's (Claude Code's /clear goes on in a new one).
  for (const [key, hook] of input.hooks ?? []) {
    const p = hook.pid === undefined || hook.phase === 'end' ? undefined : byPid.get(hook.pid);
    if (!p || p.startedAt > hook.at) continue;
    const harness = key.slice(0, key.indexOf('/')) as HarnessId;
    const own = harnessByPid.get(p.pid) === harness ? p : ancestorOf(p, harness);
    if (own) claim(harness, key.slice(harness.length + 1), { agent: agentOf(own, harness), attribution: 'hook' });
  }
  // registry: the harness wrote the pid; a pid reused by another process has another start time.
  for (const [harness, entry] of input.registries) {
    const p = byPid.get(entry.pid);
    // A start time in Linux's clock ticks says nothing where the table has none (macOS).
    const procStart = table.linuxTicks ? entry.procStart : undefined;
    if (!p || (procStart !== undefined && procStart !== p.startTicks)) continue;
    // Without a start time (Copilot's lock files), only a process of the harness may be the one
    // that wrote it: a pid reused by anything else is not.
    if (procStart === undefined && harnessByPid.get(p.pid) !== harness && ancestorOf(p, harness) === undefined)
      continue;
    const agent = agentOf(p, harness);
    // Joined by its hook already, the same process's registry still says what it does.
    const hooked = claims.get(`${harness}/${entry.sessionId}`);
    if (hooked?.agent === agent) hooked.registry ??= entry;
    claim(harness, entry.sessionId, { agent, attribution: 'registry', registry: entry });
  }
  // open-file: the process that runs the turns holds the session file open.
  for (const agent of agents.values()) {
    const sessionOf = input.openFileSession[agent.harness];
    if (!sessionOf) continue;
    for (const p of agent.tree) {
      if (harnessByPid.get(p.pid) !== agent.harness) continue;
      for (const path of table.openFiles(p.pid)) {
        const id = sessionOf(path);
        if (id) claim(agent.harness, id, { agent, attribution: 'open-file' });
      }
    }
  }
  // environment: a tool process names its session.
  for (const { agent, value } of envClaims) claim(agent.harness, value, { agent, attribution: 'environment' });
  // command-line: a session id the harness was started with, if it is one we know.
  const sessions = [...input.sessions];
  const known = new Set(sessions.map((s) => `${s.harness}/${s.id}`));
  for (const agent of agents.values()) {
    for (const id of sessionArgs(agent.proc.argv)) {
      if (known.has(`${agent.harness}/${id}`)) claim(agent.harness, id, { agent, attribution: 'command-line' });
    }
  }
  // cwd: an agent no exact method placed takes the newest unclaimed session of its harness in its
  // folder that started after it, or was active since it started. Never a daemon or its helper:
  // one left in the project when the process that ran the turn was killed would keep it open.
  const placed = new Set([...claims.values()].map((c) => c.agent));
  const byAge = sessions.filter((s) => s.cwd !== undefined).sort((a, b) => b.lastActivityAt - a.lastActivityAt);
  for (const agent of [...agents.values()].sort((a, b) => b.proc.startedAt - a.proc.startedAt)) {
    if (placed.has(agent) || agent.cwd === undefined || isDaemon(agent.harness, agent.proc.argv)) continue;
    const since = agent.proc.startedAt - START_SLACK_MS;
    const s = byAge.find(
      (x) =>
        x.harness === agent.harness &&
        x.cwd === agent.cwd &&
        !claims.has(`${x.harness}/${x.id}`) &&
        (x.startedAt >= since || x.lastActivityAt >= since),
    );
    if (s) claim(s.harness, s.id, { agent, attribution: 'cwd' });
  }
  return { agents: [...agents.values()], claims, facts };
}

const MARKER_ENV = [
  ...new Set(
    Object.values(HARNESS_PROCESSES)
      .flatMap((h) => [h.toolEnv, h.sessionEnv])
      .filter((n): n is string => n !== undefined),
  ),
];
