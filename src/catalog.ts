// The one place every metric is defined: name, kind, unit, help and labels.
//
// Names are public API (dashboards and alerts query them). The `name` is the final Prometheus
// name without `_total`; the OTel metric gets exactly this name and the UCUM unit below, so
// /metrics (which appends `_total` to counters) and the OTLP path into Prometheus
// (which appends unit words unless already in the name, `_ratio` for gauges of unit 1, nothing
// for {annotations} or no unit, and `_total` to counters) agree.

export type MetricKind = 'counter' | 'gauge';

export interface MetricDef {
  readonly name: string;
  readonly kind: MetricKind;
  readonly unit: string;
  readonly help: string;
  readonly labels: readonly string[];
  /**
   * A counter of this process alone (kept in memory, not in the state database): it starts over
   * from 0 at every start. OTLP deltas of the others go on across restarts.
   */
  readonly perProcess?: true;
}

const SESSION = ['harness', 'project', 'session_id'] as const;

function def<const L extends readonly string[]>(
  name: string,
  kind: MetricKind,
  unit: string,
  labels: L,
  help: string,
  perProcess?: 'per-process',
): MetricDef & { labels: L } {
  return { name, kind, unit, help, labels, ...(perProcess ? { perProcess: true } : {}) };
}

export const catalog = {
  tokens: def(
    'coding_agent_tokens',
    'counter',
    '{token}',
    ['harness', 'project', 'model', 'token_type'],
    'Tokens used, by type: input (prompt tokens excluding cache reads and writes), output (all generated tokens, reasoning included), cache_read, cache_write.',
  ),
  reasoningTokens: def(
    'coding_agent_reasoning_tokens',
    'counter',
    '{token}',
    ['harness', 'project', 'model'],
    'The reasoning part of output tokens (already included in token_type="output"); no series for harnesses that record none (Aider, Amp, Auggie, Cline, goose, Junie, Kimi CLI, Kodelet, pi, Roo Code, the Kilo Code extension, OpenClaw before 2026.9).',
  ),
  cost: def(
    'coding_agent_cost_usd',
    'counter',
    '{USD}',
    ['harness', 'project', 'model'],
    'Estimated cost in US dollars: as the harness recorded it where it records one (OpenCode, Kilo, pi, Aider, Hermes, Kodelet, goose, Crush), else at list prices (API-equivalent for subscription users).',
  ),
  premiumRequests: def(
    'coding_agent_premium_requests',
    'counter',
    '{request}',
    ['harness', 'project', 'model'],
    "Premium requests billed against the plan's allowance, model multipliers applied, as the harness recorded them (GitHub Copilot CLI).",
  ),
  prompts: def(
    'coding_agent_prompts',
    'counter',
    '{prompt}',
    ['harness', 'project'],
    'Prompts typed by a person (injected context, tool results and command output excluded).',
  ),
  turns: def(
    'coding_agent_turns',
    'counter',
    '{turn}',
    ['harness', 'project', 'outcome'],
    'Turns that ended, by outcome: completed, failed, interrupted.',
  ),
  toolCalls: def(
    'coding_agent_tool_calls',
    'counter',
    '{call}',
    ['harness', 'project', 'tool', 'kind'],
    'Tool calls the model made; MCP tools are reported as tool="mcp:<server>".',
  ),
  toolErrors: def(
    'coding_agent_tool_errors',
    'counter',
    '{call}',
    ['harness', 'project', 'tool', 'kind'],
    'Tool calls that failed or were rejected.',
  ),
  linesAdded: def(
    'coding_agent_lines_added',
    'counter',
    '{line}',
    ['harness', 'project'],
    'Lines added by file edits the agent made.',
  ),
  linesRemoved: def(
    'coding_agent_lines_removed',
    'counter',
    '{line}',
    ['harness', 'project'],
    'Lines removed by file edits the agent made.',
  ),
  compactions: def(
    'coding_agent_compactions',
    'counter',
    '{compaction}',
    ['harness', 'project'],
    'Context compactions (automatic or manual).',
  ),
  sessionsStarted: def(
    'coding_agent_sessions_started',
    'counter',
    '{session}',
    ['harness', 'project'],
    'Sessions seen for the first time.',
  ),

  sessions: def(
    'coding_agent_sessions',
    'gauge',
    '{session}',
    ['harness', 'project', 'status'],
    'Sessions active within the activity window (archived ones left out), and agent processes no session file is joined to, by status: asking, working, delegating, done, error, idle.',
  ),
  sessionStatus: def(
    'coding_agent_session_status',
    'gauge',
    '',
    [...SESSION, 'status', 'reason'],
    'Current status of a session that is not idle (always 1; the status and reason are labels).',
  ),
  sessionLastActivity: def(
    'coding_agent_session_last_activity_timestamp_seconds',
    'gauge',
    's',
    SESSION,
    'Time of the last record written to the session, as a Unix timestamp.',
  ),
  sessionTurnStarted: def(
    'coding_agent_session_turn_started_timestamp_seconds',
    'gauge',
    's',
    SESSION,
    'Start of the turn that is still running, as a Unix timestamp.',
  ),
  sessionContextTokens: def(
    'coding_agent_session_context_tokens',
    'gauge',
    '{token}',
    [...SESSION, 'model'],
    'Tokens in the context window at the last model request.',
  ),
  sessionContextLimit: def(
    'coding_agent_session_context_limit_tokens',
    'gauge',
    '{token}',
    [...SESSION, 'model'],
    'Size of the context window of the model in use.',
  ),
  sessionCost: def(
    'coding_agent_session_cost_usd',
    'gauge',
    '{USD}',
    SESSION,
    'Estimated cost of the session so far in US dollars.',
  ),
  sessionSubagents: def(
    'coding_agent_session_subagents',
    'gauge',
    '{agent}',
    SESSION,
    'Subagents the session is running now.',
  ),
  sessionTodos: def(
    'coding_agent_session_todos',
    'gauge',
    '{item}',
    [...SESSION, 'state'],
    "Items of the session's plan (its todo list) by state: pending, in_progress, completed, cancelled; where the harness records one.",
  ),
  sessionToolStarted: def(
    'coding_agent_session_tool_started_timestamp_seconds',
    'gauge',
    's',
    [...SESSION, 'tool', 'kind'],
    'Start of each tool call still open in the session, as a Unix timestamp (as far as the records say: when the call was written).',
  ),
  sessionProcessInfo: def(
    'coding_agent_session_process_info',
    'gauge',
    '',
    [...SESSION, 'attribution'],
    'A live process owns the session (always 1); attribution says how it was joined: hook, registry, environment, open-file, command-line, cwd.',
  ),
  agentProcesses: def(
    'coding_agent_processes',
    'gauge',
    '{process}',
    ['harness'],
    'Agent processes running now, joined to a session or not (their helper children not counted).',
  ),
  agentProcessCpu: def(
    'coding_agent_process_cpu_ratio',
    'gauge',
    '1',
    ['harness'],
    'CPU cores the agent processes and their children used over the last interval, summed per harness.',
  ),
  agentProcessMemory: def(
    'coding_agent_process_resident_memory_bytes',
    'gauge',
    'By',
    ['harness'],
    'Resident memory of the agent processes and their children, summed per harness.',
  ),
  usageLimitUsed: def(
    'coding_agent_usage_limit_used_ratio',
    'gauge',
    '1',
    ['harness', 'window'],
    "Share of a usage-limit window already used (0 to 1), as last reported by the harness; window: 5h, 7d, 7d_opus, 7d_sonnet, premium_interactions, chat, completions (Copilot's quotas) or other.",
  ),
  usageLimitResets: def(
    'coding_agent_usage_limit_resets_timestamp_seconds',
    'gauge',
    's',
    ['harness', 'window'],
    'When a usage-limit window resets, as a Unix timestamp.',
  ),
  blockTokens: def(
    'coding_agent_usage_block_tokens',
    'gauge',
    '{token}',
    ['harness'],
    "Tokens (input, output, cache reads and writes) of the 5-hour block running now, as ccusage computes blocks: from the first request's hour (UTC), 5 hours, a gap of 5 hours starts a new one; 0 when none runs. An estimate of a subscription's 5-hour window.",
  ),
  blockCost: def(
    'coding_agent_usage_block_cost_usd',
    'gauge',
    '{USD}',
    ['harness'],
    'Estimated cost in US dollars of the 5-hour block running now (see coding_agent_usage_block_tokens); 0 when none runs.',
  ),
  blockBurnRate: def(
    'coding_agent_usage_block_burn_rate_tokens_per_minute',
    'gauge',
    '{token/min}',
    ['harness'],
    'Tokens per minute of the 5-hour block running now, between its first and its last request, once they are a minute apart or more (no series before).',
  ),
  blockProjectedCost: def(
    'coding_agent_usage_block_projected_cost_usd',
    'gauge',
    '{USD}',
    ['harness'],
    'Cost in US dollars the 5-hour block running now reaches at its end, at its burn rate so far.',
  ),
  blockEnd: def(
    'coding_agent_usage_block_end_timestamp_seconds',
    'gauge',
    's',
    ['harness'],
    'When the 5-hour block running now ends, as a Unix timestamp.',
  ),

  buildInfo: def(
    'coding_agent_exporter_build_info',
    'gauge',
    '',
    ['version', 'node_version'],
    'Build information of the exporter (always 1).',
  ),
  collectorSuccess: def(
    'coding_agent_exporter_collector_success',
    'gauge',
    '',
    ['collector'],
    'Whether the last scan of a collector succeeded (1) or failed (0).',
  ),
  collectorDuration: def(
    'coding_agent_exporter_collector_duration_seconds',
    'gauge',
    's',
    ['collector'],
    'Duration of the last scan of a collector.',
  ),
  collectorLastSuccess: def(
    'coding_agent_exporter_collector_last_success_timestamp_seconds',
    'gauge',
    's',
    ['collector'],
    'Time of the last successful scan of a collector, as a Unix timestamp.',
  ),
  files: def('coding_agent_exporter_files', 'gauge', '{file}', ['collector'], 'Session files a collector tracks.'),
  readBytes: def(
    'coding_agent_exporter_read_bytes',
    'counter',
    'By',
    ['collector'],
    "Bytes read from session files (what SQLite reads from a harness's database is not counted).",
    'per-process',
  ),
  skippedRecords: def(
    'coding_agent_exporter_skipped_records',
    'counter',
    '{record}',
    ['collector', 'reason'],
    'Records skipped because they could not be used, by reason.',
    'per-process',
  ),
  labelFolds: def(
    'coding_agent_exporter_label_folds',
    'counter',
    '{record}',
    ['harness', 'label'],
    'Records whose model or tool label value was folded into "other": the harness had more distinct values than model.max or tool.max allow.',
    'per-process',
  ),
  driftSessions: def(
    'coding_agent_exporter_drift_sessions',
    'gauge',
    '{session}',
    ['collector'],
    "Sessions in the activity window that did work (finished turns, records of an unknown shape) while the reader counted no tokens for them: the reader fell behind the harness's format.",
  ),
  unpricedTokens: def(
    'coding_agent_exporter_unpriced_tokens',
    'counter',
    '{token}',
    ['harness', 'model'],
    'Tokens of models without a known price (their cost is not in coding_agent_cost_usd_total).',
  ),
  pricingInfo: def(
    'coding_agent_exporter_pricing_info',
    'gauge',
    '',
    ['source', 'version'],
    'The price table in use (always 1).',
  ),
  otlpExports: def(
    'coding_agent_exporter_otlp_exports',
    'counter',
    '{export}',
    ['result'],
    'OTLP pushes by result (success, failure); failures are also logged. Present when a push is configured.',
    'per-process',
  ),

  // The exporter's own process, under the names every Prometheus client library uses.
  processCpu: def(
    'process_cpu_seconds',
    'counter',
    's',
    [],
    'Total user and system CPU time spent in seconds.',
    'per-process',
  ),
  processResidentMemory: def('process_resident_memory_bytes', 'gauge', 'By', [], 'Resident memory size in bytes.'),
  processStartTime: def(
    'process_start_time_seconds',
    'gauge',
    's',
    [],
    'Start time of the process since unix epoch in seconds.',
  ),
  processOpenFds: def('process_open_fds', 'gauge', '{fd}', [], 'Number of open file descriptors.'),
  processMaxFds: def('process_max_fds', 'gauge', '{fd}', [], 'Maximum number of open file descriptors.'),
  eventLoopLag: def('nodejs_eventloop_lag_seconds', 'gauge', 's', [], 'Lag of event loop in seconds.'),
  heapUsed: def('nodejs_heap_size_used_bytes', 'gauge', 'By', [], 'Process heap size used from Node.js in bytes.'),
} as const;

type Catalog = typeof catalog;
export type MetricKey = keyof Catalog;
/** The label object a metric takes: exactly its label keys, string values. */
export type LabelsOf<K extends MetricKey> = { readonly [L in Catalog[K]['labels'][number]]: string };

/** The name as Prometheus shows it: counters gain `_total`. */
export function exposedName(m: MetricDef): string {
  return m.kind === 'counter' ? `${m.name}_total` : m.name;
}
