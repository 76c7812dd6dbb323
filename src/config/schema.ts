// Every configuration key, with its default, environment variable and command-line flag. The
// `collectors` section has one block per harness.

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { HARNESSES } from '../session/vocabulary.js';

/** The days a week may start on (`report.startOfWeek`, ccusage's `--start-of-week`), Sunday first as Date's getUTCDay. */
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export const ENV_PREFIX = 'CODING_AGENT_EXPORTER_';

function defaultStateDir(): string {
  const { XDG_STATE_HOME: xdg, LOCALAPPDATA } = process.env;
  // LOCALAPPDATA, Windows's folder for a program's local state, is set on Windows alone.
  return join(
    xdg && isAbsolute(xdg) ? xdg : LOCALAPPDATA || join(homedir(), '.local', 'state'),
    'coding-agent-exporter',
  );
}

function collectorsSchema() {
  const section: Record<string, unknown> = {};
  for (const harness of HARNESSES) {
    const envName = `${ENV_PREFIX}${harness.toUpperCase().replace(/-/g, '_')}`;
    section[harness] = {
      enabled: {
        doc: `Read ${harness} sessions.`,
        format: 'boolean',
        default: true,
        env: `${envName}_ENABLED`,
        arg: `collector.${harness}`,
      },
      roots: {
        doc: `Folders to read ${harness} sessions from; empty: the harness's default locations.`,
        format: Array,
        default: [] as string[],
        env: `${envName}_ROOTS`,
      },
    };
  }
  return section;
}

export function schema() {
  return {
    listenAddress: {
      doc: "host:port the metrics endpoint listens on (loopback by default: metrics name your projects); :port listens on every interface (with a warning). The flag --web.listen-address (exporter-toolkit's name) sets it too.",
      format: String,
      default: '127.0.0.1:10477',
      env: `${ENV_PREFIX}LISTEN_ADDRESS`,
      arg: 'listen-address',
    },
    webConfigFile: {
      doc: 'Web configuration file in the Prometheus exporter-toolkit format: TLS (tls_server_config), basic auth (basic_auth_users, bcrypt hashes) and response headers (http_server_config.headers); re-read when it or a certificate changes. Empty: plain HTTP, no authentication.',
      format: String,
      default: '',
      env: `${ENV_PREFIX}WEB_CONFIG_FILE`,
      arg: 'web.config.file',
    },
    web: {
      allowedHosts: {
        doc: 'Host names the endpoint answers besides IP addresses, localhost and the listen host, e.g. a name in front of a proxy; ".example.com" takes example.com and every name under it. Requests naming any other host are refused (403): a web page could otherwise read the sessions through a name it points at this machine (DNS rebinding).',
        format: Array,
        default: [] as string[],
        env: `${ENV_PREFIX}WEB_ALLOWED_HOSTS`,
      },
    },
    metricsPath: {
      doc: 'Path of the metrics endpoint.',
      format: String,
      default: '/metrics',
      env: `${ENV_PREFIX}METRICS_PATH`,
      arg: 'metrics-path',
    },
    stateDir: {
      doc: 'Folder of the state database (offsets, dedupe keys, counter totals); on Windows %LOCALAPPDATA%\\coding-agent-exporter unless XDG_STATE_HOME is set.',
      format: String,
      default: defaultStateDir(),
      env: `${ENV_PREFIX}STATE_DIR`,
      arg: 'state-dir',
    },
    logLevel: {
      doc: 'Log level.',
      format: ['debug', 'info', 'warn', 'error'],
      default: 'info',
      env: `${ENV_PREFIX}LOG_LEVEL`,
      arg: 'log-level',
    },
    rescanSeconds: {
      doc: 'Seconds between full rescans, which catch what file watching misses. A harness whose folders are watched is rescanned less often while its rescans find nothing new, up to 10 times this.',
      format: 'nat',
      default: 30,
      env: `${ENV_PREFIX}RESCAN_SECONDS`,
      arg: 'rescan-seconds',
    },
    readThreads: {
      doc: 'Threads that read a history for the first time (an empty state database, 256 MB of files or more under a root) beside the main thread, at most one fewer than the cores; each adds about 40 MB while it runs. A report with no state database reads on every core (one fewer threads than the cores, beside the main thread), its threads started with it and given every backlog. 0: the main thread reads everything.',
      format: 'nat',
      default: 2,
      env: `${ENV_PREFIX}READ_THREADS`,
      arg: 'read-threads',
    },
    watch: {
      doc: 'Watch the harness folders for changes (new records show within a second).',
      format: 'boolean',
      default: true,
      env: `${ENV_PREFIX}WATCH`,
      arg: 'watch',
    },
    project: {
      mode: {
        doc: 'How the project label is written: name (folder name), path (full path), hash (short hash of the path), none (one label "all"). A change applies to sessions first seen after it: what was counted keeps the label it was counted under (a counter is kept per label, and a name may hold two folders, which no other mode can split), so old and new labels show side by side; only --reset-state relabels everything, and it starts every counter from 0.',
        format: ['name', 'path', 'hash', 'none'],
        default: 'name',
        env: `${ENV_PREFIX}PROJECT_MODE`,
        arg: 'project-mode',
      },
      aliases: {
        doc: 'Project labels to rename: {"<name or path>": "<label>"}. Like project.mode, a change applies to sessions first seen after it.',
        format: Object,
        default: {} as Record<string, string>,
      },
      max: {
        doc: 'Distinct projects exported at most; the rest fold into "other".',
        format: 'nat',
        default: 50,
        env: `${ENV_PREFIX}PROJECT_MAX`,
      },
    },
    model: {
      max: {
        doc: 'Distinct model label values per harness exported at most; the rest fold into "other".',
        format: 'nat',
        default: 50,
        env: `${ENV_PREFIX}MODEL_MAX`,
      },
    },
    tool: {
      max: {
        doc: 'Distinct tool label values (tools and MCP servers) per harness exported at most; the rest fold into "other".',
        format: 'nat',
        default: 100,
        env: `${ENV_PREFIX}TOOL_MAX`,
      },
    },
    sessions: {
      activeWindowSeconds: {
        doc: 'Sessions with activity within this many seconds count in coding_agent_sessions.',
        format: 'nat',
        default: 86400,
        env: `${ENV_PREFIX}SESSIONS_ACTIVE_WINDOW_SECONDS`,
      },
      perSessionMax: {
        doc: 'Per-session series (coding_agent_session_*) for at most this many non-idle sessions; 0 switches them off.',
        format: 'nat',
        default: 50,
        env: `${ENV_PREFIX}SESSIONS_PER_SESSION_MAX`,
      },
      doneForSeconds: {
        doc: 'A finished turn shows as done this long, then the session is idle, where the harness records no reading of it (a failed turn stays an error until the next turn).',
        format: 'nat',
        default: 1800,
        env: `${ENV_PREFIX}SESSIONS_DONE_FOR_SECONDS`,
      },
      staleAfterSeconds: {
        doc: 'Where processes cannot be seen (processes.enabled off, no process table): without new records for this long, an open turn or running tool call counts as abandoned. An open question or approval never does.',
        format: 'nat',
        default: 7200,
        env: `${ENV_PREFIX}SESSIONS_STALE_AFTER_SECONDS`,
      },
    },
    report: {
      startOfWeek: {
        doc: 'The day `report weekly` starts its weeks on (Sunday, as `ccusage claude weekly`); a week is named by its first day.',
        format: WEEKDAYS,
        default: 'sunday',
        env: `${ENV_PREFIX}REPORT_START_OF_WEEK`,
        arg: 'start-of-week',
      },
    },
    ledger: {
      days: {
        doc: 'Days the state database keeps of the ledger (tokens, cost, requests, sessions and turns per quarter hour, harness, project and model) that `report` reads; older hours are deleted.',
        format: 'nat',
        default: 400,
        env: `${ENV_PREFIX}LEDGER_DAYS`,
        arg: 'ledger.days',
      },
    },
    processes: {
      enabled: {
        doc: "Read the process table (of the user the exporter runs as) to see which agents run, join them to sessions and tell a running tool from a prompt; off: session files alone decide (containers without the host's processes, recorded files).",
        format: 'boolean',
        default: true,
        env: `${ENV_PREFIX}PROCESSES_ENABLED`,
        arg: 'processes',
      },
      procRoot: {
        doc: "Where the process table is mounted (Linux); a host's /proc mounted into a container elsewhere.",
        format: String,
        default: '/proc',
        env: `${ENV_PREFIX}PROCESSES_PROC_ROOT`,
      },
    },
    pricing: {
      overridesFile: {
        doc: 'JSON file of prices that override the bundled table: {"<model>": {"input_mtok": 3, "output_mtok": 15, "cache_read_mtok": 0.3, "cache_write_mtok": 3.75}} (USD per million tokens).',
        format: String,
        default: '',
        env: `${ENV_PREFIX}PRICING_OVERRIDES_FILE`,
        arg: 'pricing-overrides',
      },
    },
    identity: {
      user: {
        doc: "Who this machine's sessions belong to: the OTLP resource attribute user.name. Empty: the OS user name (never an e-mail unless you write one).",
        format: String,
        default: '',
        env: `${ENV_PREFIX}IDENTITY_USER`,
        arg: 'identity.user',
      },
      team: {
        doc: 'The team, as the OTLP resource attribute team.name; empty: none.',
        format: String,
        default: '',
        env: `${ENV_PREFIX}IDENTITY_TEAM`,
        arg: 'identity.team',
      },
      attributes: {
        doc: 'More resource attributes that say who or where, e.g. {"department": "platform", "cost_center": "42"}.',
        format: Object,
        default: {} as Record<string, string>,
      },
    },
    otlp: {
      endpoint: {
        doc: 'OTLP receiver to push metrics to (http://collector:4318 for HTTP, http://collector:4317 for gRPC); empty: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, else no push.',
        format: String,
        default: '',
        env: `${ENV_PREFIX}OTLP_ENDPOINT`,
        arg: 'otlp-endpoint',
      },
      protocol: {
        doc: 'OTLP protocol: http/protobuf, http/json or grpc; empty: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf.',
        format: ['', 'http/protobuf', 'http/json', 'grpc'],
        default: '',
        env: `${ENV_PREFIX}OTLP_PROTOCOL`,
      },
      headers: {
        doc: 'Headers (gRPC metadata) sent with each push, e.g. {"authorization": "Bearer …"}; they win over OTEL_EXPORTER_OTLP_HEADERS.',
        format: Object,
        default: {} as Record<string, string>,
      },
      intervalSeconds: {
        doc: 'Seconds between pushes; 0: OTEL_METRIC_EXPORT_INTERVAL (milliseconds), else 60.',
        format: 'nat',
        default: 0,
        env: `${ENV_PREFIX}OTLP_INTERVAL_SECONDS`,
      },
      temporality: {
        doc: 'Counter temporality: cumulative (exact whatever is lost or resent) or delta (a push unanswered within the timeout counts as taken, see OTLP push); empty: OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, else cumulative.',
        format: ['', 'cumulative', 'delta'],
        default: '',
        env: `${ENV_PREFIX}OTLP_TEMPORALITY`,
      },
      resourceAttributes: {
        doc: 'Resource attributes, over every other source (identity, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES); service.instance.id and host.name default to the host name.',
        format: Object,
        default: {} as Record<string, string>,
      },
    },
    otel: {
      semconv: {
        doc: 'Also push the OpenTelemetry GenAI semantic-conventions view: genai (gen_ai.client.token.usage; the newer gen_ai.client.inference.* instruments with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental); empty: none.',
        format: ['', 'genai'],
        default: '',
        env: `${ENV_PREFIX}OTEL_SEMCONV`,
      },
      compat: {
        doc: "Also push the instruments of another tool's telemetry: claude-code (claude_code.token.usage, cost.usage, session.count, lines_of_code.count, for every harness); empty: none.",
        format: ['', 'claude-code'],
        default: '',
        env: `${ENV_PREFIX}OTEL_COMPAT`,
      },
    },
    collectors: collectorsSchema(),
  };
}
