// Static checks of the files that run the exporter for real: Dockerfile, compose.yml, Grafana
// provisioning, systemd and launchd units, the Windows Task Scheduler task, the OpenTelemetry Collector config and the README.
// (Docker cannot run in CI here; these checks catch wrong paths, flags and mounts.)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES } from '../../src/collectors/registry.js';
import { DEPLOY, GRAFANA, parsePlist, parseXml, ROOT, read, walk, yaml, type Json, type XmlElement } from './lib.js';

// The CLI contract the deploy files rely on (src/main.ts, src/config/schema.ts).
const FLAGS_WITH_VALUE = new Set([
  '--listen-address',
  '--state-dir',
  '--config',
  '--otlp-endpoint',
  '--log-level',
  '--pricing-overrides',
]);
const COMMANDS = new Set(['serve', 'once', 'sessions', 'demo']);
const STATE_DIR = '/var/lib/coding-agent-exporter';
const PORT = '10477';

/** Checks an exporter argument list (after the program): optional command, then known flags with values. */
function checkArgs(args: string[], where: string): Map<string, string> {
  const flags = new Map<string, string>();
  let i = 0;
  if (args[0] && !args[0].startsWith('-')) {
    expect(COMMANDS.has(args[0]), `${where}: unknown command ${args[0]}`).toBe(true);
    i = 1;
  }
  for (; i < args.length; i++) {
    const a = args[i]!;
    expect(FLAGS_WITH_VALUE.has(a), `${where}: unknown flag ${a}`).toBe(true);
    const v = args[++i];
    expect(v && !v.startsWith('--'), `${where}: ${a} needs a value`).toBeTruthy();
    flags.set(a, v!);
  }
  const listen = flags.get('--listen-address');
  if (listen) expect(listen, where).toMatch(/^[0-9.]+:\d+$/);
  return flags;
}

/** Source of the CLI, when it exists: every flag the deploy files use must appear in it. */
function cliSource(): string | undefined {
  const dir = join(ROOT, 'src');
  if (!existsSync(join(dir, 'main.ts'))) return undefined;
  return walk(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(join(dir, f)))
    .join('\n');
}

describe('the CLI contract', () => {
  it('matches the exporter source (flags, commands, bin)', () => {
    const pkg = JSON.parse(read(join(ROOT, 'package.json')));
    expect(pkg.bin['coding-agent-exporter']).toBe('dist/main.js');
    const src = cliSource();
    if (!src) return; // the exporter is not written yet
    for (const f of FLAGS_WITH_VALUE) {
      const name = f.slice(2);
      expect(src.includes(`'${name}'`) || src.includes(`--${name}`), `src/ has no ${f}`).toBe(true);
    }
    for (const c of COMMANDS) expect(src, c).toContain(`'${c}'`);
  });
});

describe('deploy/docker/Dockerfile', () => {
  const text = read(join(DEPLOY, 'docker', 'Dockerfile'));
  const ignore = read(join(DEPLOY, 'docker', 'Dockerfile.dockerignore'));
  const lines = text.split('\n').filter((l) => !l.trim().startsWith('#'));
  const instr = (name: string): string[] =>
    lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());

  it('builds on node:20-bookworm-slim with npm ci and npm run build', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(instr('FROM')).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE}']);
    expect(text).toMatch(/RUN npm ci\b/);
    expect(text).toMatch(/npm run build/);
  });

  it('copies only files that exist in the repository (build context = repository root)', () => {
    for (const c of instr('COPY').filter((x) => !x.includes('--from='))) {
      const parts = c.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const src of parts.slice(0, -1)) {
        expect(existsSync(join(ROOT, src)), `COPY ${src}`).toBe(true);
        // Dockerfile.dockerignore excludes everything, then re-includes what is copied.
        expect(ignore, `COPY ${src} is excluded by Dockerfile.dockerignore`).toMatch(
          new RegExp(`^!${src.replace('.', '\\.')}(/\\*\\*)?$`, 'm'),
        );
      }
    }
  });

  it('runs as a non-root user with HOME=/home/agent and a state volume', () => {
    const user = instr('USER');
    expect(user.at(-1)).toBe('agent');
    expect(text).toMatch(/HOME=\/home\/agent/);
    expect(instr('VOLUME')).toEqual([`["${STATE_DIR}"]`]);
    expect(instr('EXPOSE')).toEqual([PORT]);
  });

  it('starts dist/main.js with flags the exporter accepts, on the exposed port and the state volume', () => {
    const cmd = JSON.parse(instr('CMD').at(-1)!) as string[];
    expect(cmd.slice(0, 2)).toEqual(['node', 'dist/main.js']);
    const flags = checkArgs(cmd.slice(2), 'Dockerfile CMD');
    expect(flags.get('--listen-address')).toBe(`0.0.0.0:${PORT}`);
    expect(flags.get('--state-dir')).toBe(STATE_DIR);
  });
});

describe('deploy/docker/compose.yml', () => {
  const compose = yaml(join(DEPLOY, 'docker', 'compose.yml'));
  const dir = join(DEPLOY, 'docker');

  it('has the exporter, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['exporter', 'grafana', 'prometheus']);
    for (const [name, s] of Object.entries<Json>(compose.services)) {
      for (const p of s.ports ?? []) expect(String(p), `${name} publishes on 127.0.0.1 only`).toMatch(/^127\.0\.0\.1:/);
      if (s.image && name !== 'exporter') expect(s.image, `${name} image is pinned`).toMatch(/:v?\d+\.\d+\.\d+$/);
    }
  });

  it('builds the exporter from the repository root with deploy/docker/Dockerfile', () => {
    const build = compose.services.exporter.build;
    expect(resolve(dir, build.context)).toBe(ROOT);
    expect(existsSync(join(ROOT, build.dockerfile))).toBe(true);
  });

  it('mounts only host paths that exist in the repository (relative ones), read-only', () => {
    for (const [name, s] of Object.entries<Json>(compose.services)) {
      for (const v of s.volumes ?? []) {
        const [host, container, mode] = String(v).split(':');
        if (!host!.startsWith('.')) continue;
        expect(existsSync(resolve(dir, host!)), `${name}: ${host} does not exist`).toBe(true);
        expect(container, `${name}: ${v}`).toMatch(/^\//);
        expect(mode, `${name}: ${v} should be :ro`).toBe('ro');
      }
    }
  });

  it('mounts a root of every harness read-only under /home/agent, and the state volume', () => {
    const vols = (compose.services.exporter.volumes as string[]).map(String);
    const env = (compose.services.exporter.environment ?? {}) as Record<string, string>;
    for (const reader of Object.values(HARNESSES)) {
      // Roots named in the environment (Aider's: its default, the whole home, is not mounted).
      const named = env[`CODING_AGENT_EXPORTER_${reader.harness.toUpperCase().replace(/-/g, '_')}_ROOTS`]?.split(',');
      const roots: string[] = named ?? reader.defaultRoots({}, '/home/agent');
      // The root's folder, or one it is in (Antigravity's is in ~/.gemini), mounted from the same place at home.
      const mounted = (r: string) =>
        vols.some((v) => {
          const [host, container, mode] = v.split(':');
          return (
            mode === 'ro' &&
            host === `\${HOME}${container!.slice('/home/agent'.length)}` &&
            container!.startsWith('/home/agent/') &&
            (r === container || r.startsWith(`${container}/`))
          );
        });
      expect(roots.some(mounted), `${reader.harness}: one of ${roots.join(', ')}`).toBe(true);
    }
    for (const name of Object.keys(env).filter((k) => k.endsWith('_ROOTS'))) {
      expect(
        Object.keys(HARNESSES).map((h) => `CODING_AGENT_EXPORTER_${h.toUpperCase().replace(/-/g, '_')}_ROOTS`),
        name,
      ).toContain(name);
    }
    const state = vols.find((v) => v.endsWith(`:${STATE_DIR}`));
    expect(state).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(state!.split(':')[0]);
  });

  it('gives Prometheus the rules and alerts that deploy/docker/prometheus.yml loads', () => {
    const prom = yaml(join(dir, 'prometheus.yml'));
    const mounted = (compose.services.prometheus.volumes as string[]).map((v) => String(v).split(':'));
    for (const f of prom.rule_files as string[]) {
      const m = mounted.find(([, c]) => c === `/etc/prometheus/${f}`);
      expect(m, f).toBeDefined();
      expect(resolve(dir, m![0]!)).toBe(join(DEPLOY, 'prometheus', f));
    }
    expect(prom.scrape_configs[0].job_name).toBe('coding-agent-exporter');
    expect(prom.scrape_configs[0].static_configs[0].targets).toEqual([`exporter:${PORT}`]);
  });

  it('provisions Grafana from deploy/grafana at the path the dashboard provider reads', () => {
    const mounted = (compose.services.grafana.volumes as string[]).map((v) => String(v).split(':'));
    const prov = mounted.find(([, c]) => c === '/etc/grafana/provisioning');
    expect(resolve(dir, prov![0]!)).toBe(join(GRAFANA, 'provisioning'));
    const provider = yaml(join(GRAFANA, 'provisioning', 'dashboards', 'coding-agent-exporter.yml')).providers[0];
    const dash = mounted.find(([, c]) => c === provider.options.path);
    expect(dash, `nothing mounted at ${provider.options.path}`).toBeDefined();
    expect(resolve(dir, dash![0]!)).toBe(join(GRAFANA, 'dashboards'));
    const home = compose.services.grafana.environment.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH as string;
    expect(home.startsWith(`${provider.options.path}/`)).toBe(true);
    expect(existsSync(join(GRAFANA, 'dashboards', home.slice(provider.options.path.length + 1)))).toBe(true);
  });
});

describe('deploy/grafana/provisioning', () => {
  it('defines the Prometheus datasource with a fixed uid', () => {
    const ds = yaml(join(GRAFANA, 'provisioning', 'datasources', 'prometheus.yml'));
    expect(ds.apiVersion).toBe(1);
    expect(ds.datasources).toHaveLength(1);
    expect(ds.datasources[0]).toMatchObject({
      uid: 'prometheus',
      type: 'prometheus',
      access: 'proxy',
      url: 'http://prometheus:9090',
    });
  });

  it('has a file provider for the dashboards folder', () => {
    const p = yaml(join(GRAFANA, 'provisioning', 'dashboards', 'coding-agent-exporter.yml'));
    expect(p.apiVersion).toBe(1);
    expect(p.providers).toHaveLength(1);
    expect(p.providers[0]).toMatchObject({
      type: 'file',
      options: { path: '/var/lib/grafana/dashboards/coding-agent-exporter' },
    });
  });
});

describe('deploy/systemd/coding-agent-exporter.service', () => {
  const path = join(DEPLOY, 'systemd', 'coding-agent-exporter.service');
  const sections = new Map<string, Map<string, string[]>>();
  let current = '';
  for (const line of read(path).split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const s = /^\[(\w+)\]$/.exec(t);
    if (s) {
      current = s[1]!;
      sections.set(current, new Map());
      continue;
    }
    const kv = /^(\w+)=(.*)$/.exec(t);
    expect(kv, `bad line: ${t}`).not.toBeNull();
    const m = sections.get(current)!;
    m.set(kv![1]!, [...(m.get(kv![1]!) ?? []), kv![2]!]);
  }
  const get = (section: string, key: string): string | undefined => sections.get(section)?.get(key)?.at(-1);

  it('is a hardened user unit that restarts on failure', () => {
    expect([...sections.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(get('Service', 'Restart')).toBe('on-failure');
    expect(get('Service', 'NoNewPrivileges')).toBe('yes');
    expect(get('Service', 'ProtectSystem')).toBe('strict');
    expect(get('Service', 'ProtectHome')).toBe('read-only');
    expect(get('Service', 'ReadWritePaths')).toBe('%S/coding-agent-exporter');
    expect(get('Service', 'StateDirectory')).toBe('coding-agent-exporter');
    expect(get('Service', 'User'), 'a user unit has no User=').toBeUndefined();
    expect(get('Install', 'WantedBy')).toBe('default.target');
    // After=default.target with WantedBy=default.target is an ordering cycle.
    expect(get('Unit', 'After') ?? '').not.toContain('default.target');
  });

  it('starts the exporter with known flags, writing state where it may write', () => {
    const [program, ...args] = get('Service', 'ExecStart')!.split(/\s+/);
    expect(program).toBe('%h/.local/bin/coding-agent-exporter');
    const flags = checkArgs(args, 'ExecStart');
    expect(flags.get('--state-dir')).toBe(get('Service', 'ReadWritePaths'));
    expect(flags.get('--listen-address')).toBe(`127.0.0.1:${PORT}`);
  });

  it('passes systemd-analyze verify --user (when available)', () => {
    if (spawnSync('systemd-analyze', ['--version']).status !== 0) return;
    const runtime = mkdtempSync(join(tmpdir(), 'cae-xdg-'));
    try {
      const r = spawnSync('systemd-analyze', ['verify', '--user', path], {
        encoding: 'utf8',
        env: { ...process.env, XDG_RUNTIME_DIR: runtime },
        timeout: 30_000,
      });
      const output = `${r.stdout}${r.stderr}`;
      if (/Failed to initialize manager|Failed to lookup RuntimeDirectory|Failed to connect/i.test(output)) return; // no user manager possible here
      // The binary is not installed on this machine; everything else must be clean.
      const problems = output
        .split('\n')
        .filter((l) => l.trim() && !/is not executable: No such file or directory/.test(l));
      expect(problems).toEqual([]);
    } finally {
      rmSync(runtime, { recursive: true, force: true });
    }
  });
});

describe('deploy/launchd/io.github.coding-agent-exporter.plist', () => {
  const path = join(DEPLOY, 'launchd', 'io.github.coding-agent-exporter.plist');
  const plist = parsePlist(read(path)) as Json;

  it("is a property list launchd takes: a dict with its Label (the file's name) and ProgramArguments, every key of its type", () => {
    expect(typeof plist === 'object' && !Array.isArray(plist)).toBe(true);
    expect(plist.Label).toBe('io.github.coding-agent-exporter');
    expect(`${plist.Label}.plist`).toBe(basename(path));
    expect(Array.isArray(plist.ProgramArguments) && plist.ProgramArguments.length > 0).toBe(true);
    for (const a of plist.ProgramArguments) expect(typeof a).toBe('string');
    // launchd.plist(5)'s types for the keys the file uses; a key it does not know is a typo.
    const TYPES: Record<string, string> = {
      Label: 'string',
      ProgramArguments: 'object',
      EnvironmentVariables: 'object',
      RunAtLoad: 'boolean',
      KeepAlive: 'object',
      ThrottleInterval: 'number',
      ProcessType: 'string',
      LowPriorityIO: 'boolean',
      Umask: 'number',
      StandardOutPath: 'string',
      StandardErrorPath: 'string',
    };
    for (const [k, v] of Object.entries(plist)) expect(typeof v, k).toBe(TYPES[k]);
    for (const v of Object.values(plist.EnvironmentVariables)) expect(typeof v).toBe('string');
    expect(plist.RunAtLoad).toBe(true);
    expect(plist.KeepAlive).toEqual({ SuccessfulExit: false });
    expect(plist.ProcessType).toMatch(/^(Background|Standard|Adaptive|Interactive)$/);
    expect(plist.Umask).toBe(0o077);
  });

  it("runs the package's command where deploy/README.md installs it, with flags it takes, in folders the README makes", () => {
    const [program, ...args] = plist.ProgramArguments as string[];
    const pkg = JSON.parse(read(join(ROOT, 'package.json')));
    expect(program).toBe(`__HOME__/.local/bin/${Object.keys(pkg.bin)[0]}`);
    const readme = read(join(DEPLOY, 'README.md'));
    expect(readme).toContain('npm install --global --prefix ~/.local');
    const flags = checkArgs(args, 'ProgramArguments');
    expect(flags.get('--listen-address')).toBe(`127.0.0.1:${PORT}`);
    // Each folder the service writes in (its state, its log's) is made by the README's mkdir.
    const mkdir = /^mkdir -p (.*)$/m
      .exec(readme.slice(readme.indexOf('### macOS (launchd)')))![1]!
      .replaceAll('$HOME', '~')
      .replaceAll('"', '');
    for (const p of [flags.get('--state-dir')!, dirname(plist.StandardOutPath), dirname(plist.StandardErrorPath)]) {
      expect(p).toMatch(/^__HOME__\//);
      expect(mkdir, p).toContain(p.replace('__HOME__', '~'));
    }
    expect(plist.EnvironmentVariables.PATH.split(':')).toContain(dirname(program!));
  });

  it('is checked by a parser that fails on what plutil -lint fails on', () => {
    const ok =
      '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>A</key><string>x &amp; y</string></dict></plist>\n';
    expect(parsePlist(ok)).toEqual({ A: 'x & y' });
    for (const bad of [
      ok.replace('</string>', ''), // unclosed
      ok.replace(
        '<key>A</key><string>x &amp; y</string>',
        '<key>A</key><string>1</string><key>A</key><string>2</string>',
      ), // key twice
      ok.replace('<string>x &amp; y</string>', ''), // key without value
      ok.replace('&amp;', '&'), // bare ampersand
      ok.replace('<dict>', '<!-- a -- b --><dict>'), // -- in a comment
      ok.replace('<string>x &amp; y</string>', '<integer>1.5</integer>'),
      ok.replace('</plist>', '</plist><dict/>'),
      ok.replace('<plist version="1.0">', '<plist>'),
    ])
      expect(() => parsePlist(bad), bad).toThrow(/^plist: /);
  });
});

describe('deploy/otel-collector/config.yml', () => {
  const c = yaml(join(DEPLOY, 'otel-collector', 'config.yml'));

  it('receives OTLP/HTTP on :4318 and remote-writes to Prometheus', () => {
    expect(c.receivers.otlp.protocols.http.endpoint).toMatch(/:4318$/);
    expect(c.exporters.prometheusremotewrite.endpoint).toMatch(/^https?:\/\/.+\/api\/v1\/(write|push)$/);
    expect(c.exporters.prometheusremotewrite.add_metric_suffixes).toBe(true);
  });

  it('has a metrics pipeline whose components are all defined', () => {
    const p = c.service.pipelines.metrics;
    for (const [kind, names] of [
      ['receivers', p.receivers],
      ['processors', p.processors],
      ['exporters', p.exporters],
    ] as const) {
      for (const n of names as string[]) expect(c[kind]?.[n], `${kind}.${n}`).toBeDefined();
    }
  });
});

describe('deploy/README.md', () => {
  it('mentions every file under deploy/', () => {
    const readme = read(join(DEPLOY, 'README.md'));
    for (const f of walk(DEPLOY).filter((x) => x !== 'README.md')) {
      expect(readme.includes(f) || readme.includes(f.split('/').pop()!), f).toBe(true);
    }
  });
});

// The package is not on npm: its name is not claimed there, so a registry install would get
// whatever someone else publishes under it first. The docs lead with the clone.
describe('installing', () => {
  const docs = () =>
    [
      'README.md',
      ...walk(join(ROOT, 'docs')).map((f) => `docs/${f}`),
      ...walk(DEPLOY).map((f) => `deploy/${f}`),
    ].filter((f) => /\.(md|ya?ml|service|plist)$/.test(f));
  // `npx coding-agent-exporter`, `npm install [-g|--global --prefix P] coding-agent-exporter` (not `./coding-agent-exporter-<v>.tgz`).
  const REGISTRY =
    /npx coding-agent-exporter|npm (?:install|i)(?:\s+-{1,2}[\w-]+(?:\s+~?[\w/.]+)?)*\s+coding-agent-exporter(?![\w.-])/;

  it('from the registry only in a paragraph that says it is future, once it is published', () => {
    const found: string[] = [];
    for (const file of docs()) {
      for (const paragraph of read(join(ROOT, file)).split(/\n\s*\n/)) {
        if (!REGISTRY.test(paragraph.replace(/\s*\n\s*/g, ' '))) continue;
        found.push(file);
        expect(paragraph, file).toMatch(/once it is published/);
      }
    }
    expect(found).toEqual(expect.arrayContaining(['README.md', 'deploy/README.md']));
  });

  it('leads with the clone: the first install command of the README and of deploy/README', () => {
    for (const file of ['README.md', 'deploy/README.md']) {
      const text = read(join(ROOT, file));
      const first = text.slice(text.indexOf('\n```sh\n', text.search(/^(## Install|## 2\. )/m)) + 7).split('\n')[0];
      expect(first, file).toBe('git clone https://github.com/coding-agent-exporter/coding-agent-exporter.git');
    }
  });

  it('knows a registry install when it sees one (the check would pass on nothing)', () => {
    for (const c of [
      'npm install -g coding-agent-exporter',
      'npm install --global --prefix ~/.local coding-agent-exporter',
      'npx coding-agent-exporter',
    ])
      expect(c).toMatch(REGISTRY);
    expect('npm install --global --prefix ~/.local ./coding-agent-exporter-*.tgz').not.toMatch(REGISTRY);
  });
});

// The 30-day spend rules and panels need 30 days of data: every Prometheus the deploy files and the
// docs start keeps what the Compose file keeps (Prometheus keeps 15 days by default), and not in
// the folder it was started from (`./data` by default: the checkout).
describe('every Prometheus we tell you to run', () => {
  const RETENTION = '--storage.tsdb.retention.time=90d';
  /** The `prometheus --…` command lines of the docs and the deploy files (comment marks cut, `\` continuations joined). */
  const commands = (): { file: string; args: string[] }[] => {
    const files = [
      'README.md',
      ...walk(join(ROOT, 'docs')).map((f) => `docs/${f}`),
      ...walk(DEPLOY).map((f) => `deploy/${f}`),
    ].filter((f) => /\.(md|ya?ml)$/.test(f));
    return files.flatMap((file) => {
      const lines = read(join(ROOT, file))
        .split('\n')
        .map((l) => l.replace(/^\s*#\s?/, ''));
      const out: { file: string; args: string[] }[] = [];
      lines.forEach((line, i) => {
        if (!/^\s*prometheus\s+--/.test(line)) return;
        let text = line;
        for (let j = i; lines[j]!.trimEnd().endsWith('\\'); j++)
          text = `${text.trimEnd().slice(0, -1)} ${lines[j + 1]}`;
        out.push({ file, args: text.trim().split(/\s+/).slice(1) });
      });
      return out;
    });
  };
  const value = (args: string[], flag: string) => args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
  /** A path outside the checkout whatever folder the command runs in: absolute, or in the home folder. */
  const outside = (path: string | undefined) => path !== undefined && /^(\/|~\/|\$HOME\/|\$\{HOME\}\/)/.test(path);

  it('keeps 90 days, as the Compose file does, and stores them outside the checkout', () => {
    const compose = {
      file: 'deploy/docker/compose.yml',
      args: yaml(join(DEPLOY, 'docker/compose.yml')).services.prometheus.command as string[],
    };
    const all = [compose, ...commands()];
    const servers = all.filter((c) => !c.args.includes('--enable-feature=agent'));
    expect(servers.map((c) => c.file)).toEqual(
      expect.arrayContaining(['deploy/docker/compose.yml', 'deploy/prometheus/prometheus.yml', 'deploy/README.md']),
    );
    for (const c of servers) {
      expect(c.args, c.file).toContain(RETENTION);
      expect(outside(value(c.args, '--storage.tsdb.path')), `${c.file}: --storage.tsdb.path`).toBe(true);
    }
    // Agent mode keeps nothing but a write-ahead log until it is sent: no retention, the same rule for its folder.
    const agents = all.filter((c) => c.args.includes('--enable-feature=agent'));
    expect(agents.length).toBeGreaterThan(0);
    for (const c of agents)
      expect(outside(value(c.args, '--storage.agent.path')), `${c.file}: --storage.agent.path`).toBe(true);
  });

  it('finds a command that keeps the default 15 days in ./data (the check would pass on nothing)', () => {
    expect(outside(value(['--config.file=p.yml'], '--storage.tsdb.path'))).toBe(false);
    expect(outside('data')).toBe(false);
    expect(outside('$HOME/.local/state/prometheus')).toBe(true);
  });
});

describe('deploy/windows/coding-agent-exporter.xml', () => {
  const task = parseXml(read(join(DEPLOY, 'windows', 'coding-agent-exporter.xml')));
  const child = (el: XmlElement, name: string): XmlElement => {
    const found = el.children.filter((c) => c.name === name);
    expect(found, `<${name}> once in <${el.name}>`).toHaveLength(1);
    return found[0]!;
  };
  const path = (...names: string[]): XmlElement => names.reduce(child, task);
  // Command-line words as Windows splits them: double quotes group, and are removed.
  const words = (line: string): string[] => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

  it('is a Task Scheduler task (schema 1.2) of the elements the schema has where it has them', () => {
    expect(task.name).toBe('Task');
    expect(task.attrs).toEqual({ version: '1.2', xmlns: 'http://schemas.microsoft.com/windows/2004/02/mit/task' });
    // The task schema's children of each element the file uses; a name it does not know is a typo.
    const SCHEMA: Record<string, string[]> = {
      Task: ['RegistrationInfo', 'Triggers', 'Principals', 'Settings', 'Actions', 'Data'],
      RegistrationInfo: [
        'URI',
        'SecurityDescriptor',
        'Source',
        'Date',
        'Author',
        'Version',
        'Description',
        'Documentation',
      ],
      Triggers: [
        'BootTrigger',
        'RegistrationTrigger',
        'IdleTrigger',
        'TimeTrigger',
        'EventTrigger',
        'LogonTrigger',
        'SessionStateChangeTrigger',
        'CalendarTrigger',
      ],
      LogonTrigger: ['Enabled', 'StartBoundary', 'EndBoundary', 'Repetition', 'ExecutionTimeLimit', 'Delay', 'UserId'],
      Principals: ['Principal'],
      Principal: [
        'UserId',
        'GroupId',
        'LogonType',
        'RunLevel',
        'DisplayName',
        'ProcessTokenSidType',
        'RequiredPrivileges',
      ],
      Settings: [
        'AllowStartOnDemand',
        'RestartOnFailure',
        'MultipleInstancesPolicy',
        'DisallowStartIfOnBatteries',
        'StopIfGoingOnBatteries',
        'AllowHardTerminate',
        'StartWhenAvailable',
        'NetworkProfileName',
        'RunOnlyIfNetworkAvailable',
        'WakeToRun',
        'Enabled',
        'Hidden',
        'DeleteExpiredTaskAfter',
        'IdleSettings',
        'NetworkSettings',
        'ExecutionTimeLimit',
        'Priority',
        'RunOnlyIfIdle',
        'UseUnifiedSchedulingEngine',
        'DisallowStartOnRemoteAppSession',
      ],
      IdleSettings: ['Duration', 'WaitTimeout', 'StopOnIdleEnd', 'RestartOnIdle'],
      RestartOnFailure: ['Interval', 'Count'],
      Actions: ['Exec', 'ComHandler', 'SendEmail', 'ShowMessage'],
      Exec: ['Command', 'Arguments', 'WorkingDirectory'],
    };
    const visit = (el: XmlElement) => {
      // Only triggers and actions may repeat.
      if (el.name !== 'Triggers' && el.name !== 'Actions')
        expect(new Set(el.children.map((c) => c.name)).size, `<${el.name}>'s children once each`).toBe(
          el.children.length,
        );
      for (const c of el.children) {
        expect(SCHEMA[el.name], `<${c.name}> in <${el.name}>`).toContain(c.name);
        visit(c);
      }
    };
    visit(task);
    for (const [el, value] of [
      [path('Settings', 'Enabled'), 'true'],
      [path('Triggers', 'LogonTrigger', 'Enabled'), 'true'],
    ] as const)
      expect(el.text).toBe(value);
  });

  it('starts at logon, as you, runs for ever, restarts after a failure, once at a time, on battery too', () => {
    path('Triggers', 'LogonTrigger');
    const principal = path('Principals', 'Principal');
    expect(path('Actions').attrs.Context).toBe(principal.attrs.id);
    expect(child(principal, 'LogonType').text).toMatch(/^(S4U|InteractiveToken|Password)$/);
    expect(child(principal, 'RunLevel').text).toBe('LeastPrivilege');
    expect(path('Settings', 'ExecutionTimeLimit').text).toBe('PT0S');
    expect(path('Settings', 'MultipleInstancesPolicy').text).toBe('IgnoreNew');
    expect(path('Settings', 'DisallowStartIfOnBatteries').text).toBe('false');
    expect(path('Settings', 'StopIfGoingOnBatteries').text).toBe('false');
    // The schema's bounds: a restart interval of 1 minute to 31 days, a count of at least 1.
    expect(path('Settings', 'RestartOnFailure', 'Interval').text).toMatch(/^PT([1-9]\d*)M$/);
    expect(Number(path('Settings', 'RestartOnFailure', 'Count').text)).toBeGreaterThanOrEqual(1);
  });

  it('runs the command npm installs, with flags it takes, its state where deploy/README.md makes the folder', () => {
    const pkg = JSON.parse(read(join(ROOT, 'package.json')));
    expect(words(path('Actions', 'Exec', 'Command').text)).toEqual([`%APPDATA%\\npm\\${Object.keys(pkg.bin)[0]}.cmd`]);
    const flags = checkArgs(words(path('Actions', 'Exec', 'Arguments').text), 'Arguments');
    expect(flags.get('--listen-address')).toBe(`127.0.0.1:${PORT}`);
    const readme = read(join(DEPLOY, 'README.md'));
    const section = readme.slice(readme.indexOf('### Windows (Task Scheduler)'));
    expect(section).toContain('npm install --global');
    expect(section).toContain('Register-ScheduledTask');
    expect(section).toContain('deploy\\windows\\coding-agent-exporter.xml');
    expect(section).toMatch(/not yet run on Windows/i);
    const state = flags.get('--state-dir')!.replace('%LOCALAPPDATA%', '$env:LOCALAPPDATA');
    expect(/^New-Item .*$/m.exec(section)?.[0], 'the state folder is made').toContain(state);
  });

  it('is checked by a parser that fails on malformed XML', () => {
    const ok = '<?xml version="1.0"?>\n<Task a="1"><B>x &amp; y</B><C/></Task>\n';
    expect(parseXml(ok)).toEqual({
      name: 'Task',
      attrs: { a: '1' },
      text: '',
      children: [
        { name: 'B', attrs: {}, children: [], text: 'x & y' },
        { name: 'C', attrs: {}, children: [], text: '' },
      ],
    });
    for (const bad of [
      ok.replace('</B>', ''),
      ok.replace('</B>', '</C>'),
      ok.replace('&amp;', '&'),
      ok.replace('a="1"', 'a="1" a="2"'),
      ok.replace('<B>', '<!-- a -- b --><B>'),
      `${ok}<D/>`,
    ]) {
      expect(() => parseXml(bad), bad).toThrow(/^xml: /);
    }
  });
});
