// Turns the store and the collectors' stats into the current value of every catalog metric.
// Runs on every scrape and OTLP export: it reads memory only, never files.

import type { CollectorStats } from '../collectors/collector.js';
import { boundLabel } from '../session/labels.js';
import { SKIP_REASONS, STATUSES, TODO_STATES, TURN_OUTCOMES } from '../session/vocabulary.js';
import { projection } from '../store/blocks.js';
import { isReset } from '../store/limits.js';
import { countedSessions, liveSessions, type LiveOptions } from '../store/live.js';
import type { SessionStore } from '../store/store.js';
import { catalog, type MetricDef, type MetricKey } from '../catalog.js';

export interface Point {
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  def: MetricDef;
  points: Point[];
}

export interface SnapshotOptions extends LiveOptions {
  /** Per-session series for at most this many non-idle sessions (0 switches them off). */
  perSessionMax: number;
  version: string;
  /** Pushes so far by result, when an OTLP push is configured. */
  otlpExports?: Readonly<Record<string, number>>;
}

export function snapshot(
  store: SessionStore,
  collectors: ReadonlyMap<string, CollectorStats>,
  opts: SnapshotOptions,
  now = Date.now(),
): Family[] {
  const families = new Map<MetricKey, Point[]>();
  const put = (key: MetricKey, labels: Record<string, string>, value: number) => {
    let points = families.get(key);
    if (!points) families.set(key, (points = []));
    points.push({ labels, value });
  };

  // Counters as last committed (Counter.committed): what a restart resumes from, never more.
  const counters = [...store.counters.values()].filter((c) => c.committed !== undefined);
  const present = new Set<string>();
  for (const c of counters) {
    put(c.metric, c.labels, c.committed!);
    present.add(seriesKey(c.metric, c.labels));
  }
  // A series a dashboard plots is there from the start, at 0, wherever its label values are known
  // from another series (no "No data" panel before the first failure). A value a harness never
  // records (a token type, a compaction) gets no series: 0 would claim it was measured.
  const zero = (metric: MetricKey, labels: Record<string, string>) => {
    const key = seriesKey(metric, labels);
    if (present.has(key)) return;
    present.add(key);
    put(metric, labels, 0);
  };
  for (const { metric, labels: l } of counters) {
    if (metric === 'tokens') zero('unpricedTokens', { harness: l.harness!, model: l.model! });
    if (metric === 'toolCalls') zero('toolErrors', l);
    if (metric === 'turns')
      for (const outcome of TURN_OUTCOMES) zero('turns', { harness: l.harness!, project: l.project!, outcome });
    if (metric === 'linesAdded') zero('linesRemoved', l);
    if (metric === 'linesRemoved') zero('linesAdded', l);
  }

  const live = liveSessions(store, now, opts);
  // Every status of every harness and project with a live session, 0 when none: a status that
  // empties must drop to 0, not vanish.
  const counts = new Map<string, number>();
  const count = (harness: string, project: string, status: string) => {
    for (const st of STATUSES) {
      const k = JSON.stringify([harness, project, st]);
      counts.set(k, (counts.get(k) ?? 0) + (st === status ? 1 : 0));
    }
  };
  for (const { harness, project, status } of countedSessions(store, live)) count(harness, project, status);
  for (const [k, n] of counts) {
    const [harness, project, status] = JSON.parse(k) as [string, string, string];
    put('sessions', { harness, project, status }, n);
  }

  // Every session a live process owns, idle ones too (as many as there are agent processes).
  for (const { session: s, process: proc } of opts.perSessionMax > 0 ? live : []) {
    if (proc)
      put(
        'sessionProcessInfo',
        { harness: s.harness, project: s.project, session_id: boundLabel(s.id), attribution: proc.attribution },
        1,
      );
  }
  const shown = live.filter((l) => l.status.status !== 'idle').slice(0, opts.perSessionMax);
  for (const { session: s, status } of shown) {
    // Session ids, models and tools as the session holds them (uncapped in number: at most
    // perSessionMax sessions), their length bounded.
    const id = { harness: s.harness, project: s.project, session_id: boundLabel(s.id) };
    const model = s.model && boundLabel(s.model);
    put('sessionStatus', { ...id, status: status.status, reason: status.reason }, 1);
    for (const call of s.pendingTools.values()) {
      if (call.startedAt !== undefined)
        put('sessionToolStarted', { ...id, tool: boundLabel(call.tool), kind: call.kind }, call.startedAt / 1000);
    }
    put('sessionLastActivity', id, s.lastActivityAt / 1000);
    if (s.turnStartedAt !== undefined) put('sessionTurnStarted', id, s.turnStartedAt / 1000);
    if (model && s.contextTokens !== undefined) put('sessionContextTokens', { ...id, model }, s.contextTokens);
    if (model && s.contextLimit !== undefined) put('sessionContextLimit', { ...id, model }, s.contextLimit);
    if (!s.usageUnrecorded) put('sessionCost', id, s.costUsd);
    put(
      'sessionSubagents',
      id,
      Object.keys(s.subagents ?? {}).length ||
        [...s.pendingTools.values()].filter((t) => t.waits === 'subagents').length,
    );
    if (s.todos) for (const state of TODO_STATES) put('sessionTodos', { ...id, state }, s.todos[state] ?? 0);
  }

  for (const l of store.usageLimits.values()) {
    const reset = isReset(l, now);
    put('usageLimitUsed', { harness: l.harness, window: l.window }, reset ? 0 : l.usedRatio);
    if (l.resetsAt !== undefined && !reset)
      put('usageLimitResets', { harness: l.harness, window: l.window }, l.resetsAt);
  }

  for (const harness of store.blocks.harnesses()) {
    const b = store.blocks.current(harness, now);
    put('blockTokens', { harness }, b?.tokens ?? 0);
    put('blockCost', { harness }, b?.costUsd ?? 0);
    if (!b) continue;
    put('blockEnd', { harness }, b.endMs / 1000);
    const p = projection(b, now);
    if (p) {
      put('blockBurnRate', { harness }, p.tokensPerMinute);
      put('blockProjectedCost', { harness }, p.projectedCostUsd);
    }
  }

  for (const [label, cap] of [
    ['model', store.models],
    ['tool', store.tools],
  ] as const) {
    for (const [harness, n] of cap.folds) put('labelFolds', { harness, label }, n);
  }

  for (const [harness, t] of store.processes.totals) {
    put('agentProcesses', { harness }, t.processes);
    put('agentProcessCpu', { harness }, t.cpuRatio);
    put('agentProcessMemory', { harness }, t.residentBytes);
  }

  put('buildInfo', { version: opts.version, node_version: process.version }, 1);
  put('pricingInfo', { source: store.prices.source, version: store.prices.version }, 1);
  for (const [collector, st] of collectors) {
    put('collectorSuccess', { collector }, st.success ? 1 : 0);
    put('collectorDuration', { collector }, st.durationSeconds);
    if (st.lastSuccess !== undefined) put('collectorLastSuccess', { collector }, st.lastSuccess);
    put('files', { collector }, st.files);
    put('readBytes', { collector }, st.readBytes);
    for (const reason of new Set([...SKIP_REASONS, ...st.skipped.keys()]))
      put('skippedRecords', { collector, reason }, st.skipped.get(reason) ?? 0);
    // The collector, the config section and the harness label are the same id.
    put('driftSessions', { collector }, live.filter((l) => l.drift && l.session.harness === collector).length);
  }
  for (const [result, n] of Object.entries(opts.otlpExports ?? {})) put('otlpExports', { result }, n);

  return (Object.keys(catalog) as MetricKey[])
    .filter((k) => families.has(k))
    .map((k) => ({
      def: catalog[k],
      points: byLabels(families.get(k)!),
    }));
}

/**
 * Series in the order of their label values, compared as code units: the same order whatever the
 * locale, and no ICU collator to load (that was 6 ms of every start). Each series's key is made
 * once, not at each comparison (which took most of a render of 800 series).
 */
function byLabels(points: Point[]): Point[] {
  const keyed = points.map((p) => ({ key: Object.values(p.labels).join('\0'), p }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.p);
}

/** A series's identity, whatever the order its labels were written in. */
const seriesKey = (metric: MetricKey, labels: Record<string, string>) =>
  `${metric}\0${Object.keys(labels)
    .sort()
    .map((k) => `${k}\0${labels[k]}`)
    .join('\0')}`;
