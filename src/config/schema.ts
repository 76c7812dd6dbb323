// Every configuration key, with its default, environment variable and command-line flag. The
// `collectors` section is generated from the reader registry: one block per harness.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { READERS } from '../collectors/registry.js';

const ENV = 'CODING_AGENT_EXPORTER_';

function defaultStateDir(): string {
  const xdg = process.env.XDG_STATE_HOME;
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.local', 'state'), 'coding-agent-exporter');
}

function collectorsSchema() {
  const section: Record<string, unknown> = {};
  for (const harness of Object.keys(READERS)) {
    const envName = `${ENV}${harness.toUpperCase().replace(/-/g, '_')}`;
    section[harness] = {
      enabled: { doc: `Read ${harness} sessions.`, format: 'boolean', default: true, env: `${envName}_ENABLED`, arg: `collector.${harness}` },
      roots: {
        doc: `Folders to read ${harness} sessions from; empty: the harness's default locations.`,
        format: Array, default: [] as string[], env: `${envName}_ROOTS`,
      },
    };
  }
  return section;
}

export function schema() {
  return {
    listenAddress: {
      doc: 'host:port the metrics endpoint listens on (loopback by default: metrics name your projects).',
      format: String, default: '127.0.0.1:10477', env: `${ENV}LISTEN_ADDRESS`, arg: 'listen-address',
    },
    metricsPath: { doc: 'Path of the metrics endpoint.', format: String, default: '/metrics', env: `${ENV}METRICS_PATH`, arg: 'metrics-path' },
    stateDir: {
      doc: 'Folder of the state database (offsets, dedupe keys, counter totals).',
      format: String, default: defaultStateDir(), env: `${ENV}STATE_DIR`, arg: 'state-dir',
    },
    logLevel: { doc: 'Log level.', format: ['debug', 'info', 'warn', 'error'], default: 'info', env: `${ENV}LOG_LEVEL`, arg: 'log-level' },
    rescanSeconds: {
      doc: 'Seconds between full rescans, which catch what file watching misses.',
      format: 'nat', default: 30, env: `${ENV}RESCAN_SECONDS`, arg: 'rescan-seconds',
    },
    watch: { doc: 'Watch the harness folders for changes (new records show within a second).', format: 'boolean', default: true, env: `${ENV}WATCH`, arg: 'watch' },
    project: {
      mode: {
        doc: 'How the project label is written: name (folder name), path (full path), hash (short hash of the path), none (one label "all").',
        format: ['name', 'path', 'hash', 'none'], default: 'name', env: `${ENV}PROJECT_MODE`, arg: 'project-mode',
      },
      aliases: { doc: 'Project labels to rename: {"<name or path>": "<label>"}.', format: Object, default: {} as Record<string, string> },
      max: { doc: 'Distinct projects exported at most; the rest fold into "other".', format: 'nat', default: 50, env: `${ENV}PROJECT_MAX` },
    },
    sessions: {
      activeWindowSeconds: {
        doc: 'Sessions with activity within this many seconds count in coding_agent_sessions.',
        format: 'nat', default: 86400, env: `${ENV}SESSIONS_ACTIVE_WINDOW_SECONDS`,
      },
      perSessionMax: {
        doc: 'Per-session series (coding_agent_session_*) for at most this many non-idle sessions; 0 switches them off.',
        format: 'nat', default: 50, env: `${ENV}SESSIONS_PER_SESSION_MAX`,
      },
      doneForSeconds: {
        doc: 'A finished turn shows as done this long, then the session is idle, where the harness records no reading of it (a failed turn stays an error until the next turn).',
        format: 'nat', default: 1800, env: `${ENV}SESSIONS_DONE_FOR_SECONDS`,
      },
      staleAfterSeconds: {
        doc: 'Where processes cannot be seen (processes.enabled off, no process table): without new records for this long, an open turn or running tool call counts as abandoned. An open question or approval never does.',
        format: 'nat', default: 7200, env: `${ENV}SESSIONS_STALE_AFTER_SECONDS`,
      },
    },
    processes: {
      enabled: {
        doc: 'Read the process table (of the user the exporter runs as) to see which agents run, join them to sessions and tell a running tool from a prompt; off: session files alone decide (containers without the host\'s processes, recorded files).',
        format: 'boolean', default: true, env: `${ENV}PROCESSES_ENABLED`, arg: 'processes',
      },
      procRoot: {
        doc: 'Where the process table is mounted (Linux); a host\'s /proc mounted into a container elsewhere.',
        format: String, default: '/proc', env: `${ENV}PROCESSES_PROC_ROOT`,
      },
    },
    pricing: {
      overridesFile: {
        doc: 'JSON file of prices that override the bundled table: {"<model>": {"input_mtok": 3, "output_mtok": 15, "cache_read_mtok": 0.3, "cache_write_mtok": 3.75}} (USD per million tokens).',
        format: String, default: '', env: `${ENV}PRICING_OVERRIDES_FILE`, arg: 'pricing-overrides',
      },
    },
    otlp: {
      endpoint: { doc: 'OTLP/HTTP receiver to push metrics to (e.g. http://collector:4318); empty: no push.', format: String, default: '', env: `${ENV}OTLP_ENDPOINT`, arg: 'otlp-endpoint' },
      protocol: { doc: 'OTLP encoding.', format: ['http/protobuf', 'http/json'], default: 'http/protobuf', env: `${ENV}OTLP_PROTOCOL` },
      headers: { doc: 'HTTP headers sent with each push, e.g. {"authorization": "Bearer …"}.', format: Object, default: {} as Record<string, string> },
      intervalSeconds: { doc: 'Seconds between pushes.', format: 'nat', default: 60, env: `${ENV}OTLP_INTERVAL_SECONDS` },
      temporality: { doc: 'Counter temporality: cumulative (safe to resend) or delta.', format: ['cumulative', 'delta'], default: 'cumulative', env: `${ENV}OTLP_TEMPORALITY` },
      resourceAttributes: {
        doc: 'Resource attributes that identify this machine and user (service.instance.id defaults to the host name). OTEL_RESOURCE_ATTRIBUTES is honoured too.',
        format: Object, default: {} as Record<string, string>,
      },
    },
    collectors: collectorsSchema(),
  };
}
