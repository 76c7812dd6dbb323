// Shared helpers for the deploy/ checks: paths, YAML loading, a small PromQL scanner, the set of
// metric names an expression may use, and promtool.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { catalog, exposedName, type MetricDef } from '../../src/catalog.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEPLOY = join(ROOT, 'deploy');
export const PROM = join(DEPLOY, 'prometheus');
export const GRAFANA = join(DEPLOY, 'grafana');
export const DASHBOARDS = join(GRAFANA, 'dashboards');
export const RUNBOOK = join(ROOT, 'docs', 'runbook.md');
export const RUNBOOK_BASE = 'https://github.com/coding-agent-exporter/coding-agent-exporter/blob/main/docs/runbook.md';

/** A parsed deploy file (YAML or JSON): the tests check its shape as they walk it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- typing every dashboard and rule file would restate them
export type Json = any;

export const read = (path: string): string => readFileSync(path, 'utf8');
export const yaml = (path: string): Json => parseYaml(read(path));

/** Every file under dir, recursively, as paths relative to dir. */
export function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? walk(join(dir, name), rel) : [rel];
  });
}

// ---------------------------------------------------------------------------------------------
// Rule files

export interface RecordingRule {
  record: string;
  expr: string;
  group: string;
}
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  group: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function recordingRules(): RecordingRule[] {
  const doc = yaml(join(PROM, 'rules.yml')) as {
    groups: { name: string; rules: { record?: string; expr: string }[] }[];
  };
  return doc.groups.flatMap((g) =>
    g.rules.filter((r) => r.record).map((r) => ({ record: r.record!, expr: String(r.expr), group: g.name })),
  );
}

export function alertRules(): AlertRule[] {
  const doc = yaml(join(PROM, 'alerts.yml')) as { groups: { name: string; rules: Omit<AlertRule, 'group'>[] }[] };
  return doc.groups.flatMap((g) =>
    g.rules.filter((r) => r.alert).map((r) => ({ ...r, expr: String(r.expr), group: g.name })),
  );
}

/** Threshold rules: `record: coding_agent:<name>:threshold`, `expr: vector(<number>)`. */
export function thresholds(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of recordingRules()) {
    if (!r.record.endsWith(':threshold')) continue;
    const m = /^\s*vector\(\s*([0-9.]+)\s*\)\s*$/.exec(r.expr);
    if (!m) throw new Error(`threshold rule ${r.record} is not vector(<number>): ${r.expr}`);
    out.set(r.record, Number(m[1]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// PromQL scanning (enough for our expressions; promtool checks the real syntax)

const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan', 'start', 'end']);

export interface Selector {
  name: string;
  matchers: Matcher[];
  raw: string;
}
export interface Matcher {
  label: string;
  op: string;
  value: string;
}
export interface Scan {
  selectors: Selector[];
  ranges: string[];
}

const TOKEN =
  /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\{[^}]*\}|\[[^\]]*\]|[a-zA-Z_:][a-zA-Z0-9_:]*|\$\{?[a-zA-Z_]+\}?|\d+(?:\.\d+)?(?:[a-zA-Z]+\d*)*|#[^\n]*|\S/g;

export function parseMatchers(braces: string): Matcher[] {
  const out: Matcher[] = [];
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;
  for (const m of braces.matchAll(re)) out.push({ label: m[1]!, op: m[2]!, value: m[3]! });
  return out;
}

/** Metric selectors (name + matchers) and range/subquery brackets of a PromQL expression. */
export function scan(expr: string): Scan {
  const tokens = [...expr.matchAll(TOKEN)].map((m) => m[0]).filter((t) => !t.startsWith('#'));
  const selectors: Selector[] = [];
  const ranges: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith('[')) {
      ranges.push(t.slice(1, -1).trim());
      continue;
    }
    if (t.startsWith('{')) throw new Error(`selector without a metric name in: ${expr}`);
    if (!/^[a-zA-Z_:]/.test(t)) continue;
    const next = tokens[i + 1];
    if (GROUPING.has(t)) {
      if (next === '(') {
        while (i < tokens.length && tokens[i] !== ')') i++;
      }
      continue;
    }
    if (AGGREGATIONS.has(t) || KEYWORDS.has(t) || next === '(') continue;
    const braces = next?.startsWith('{') ? next : '';
    if (braces) i++;
    selectors.push({ name: t, matchers: parseMatchers(braces), raw: t + braces });
  }
  return { selectors, ranges };
}

// ---------------------------------------------------------------------------------------------
// Known metrics and their labels

export const BUILTINS: Record<string, string[]> = { up: [], scrape_duration_seconds: [] };
// job and instance from the scrape; user and team from the team setup's agent (deploy/team/).
export const TARGET_LABELS = ['job', 'instance', 'user', 'team'];

export const catalogByName = new Map<string, MetricDef>(
  Object.values(catalog).map((m) => [exposedName(m), m as MetricDef]),
);

/** Labels a series can have: catalog labels, or what a recording rule keeps (from its `by`). */
export function knownMetrics(): Map<string, string[] | undefined> {
  const known = new Map<string, string[] | undefined>();
  for (const [name, def] of catalogByName) known.set(name, [...def.labels, ...TARGET_LABELS]);
  for (const [name, labels] of Object.entries(BUILTINS)) known.set(name, [...labels, ...TARGET_LABELS]);
  for (const r of recordingRules()) {
    if (r.record.endsWith(':threshold')) {
      known.set(r.record, []);
      continue;
    }
    const by = /\bby\s*\(([^)]*)\)/.exec(r.expr);
    if (by) {
      known.set(
        r.record,
        by[1]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
      continue;
    }
    // No aggregation: inherits the labels of the (single) series it reads.
    const inner = scan(r.expr).selectors[0];
    known.set(r.record, inner ? known.get(inner.name) : undefined);
  }
  return known;
}

/** Values a label may take when matched literally. */
export const LABEL_VALUES: Record<string, readonly string[]> = {
  status: ['asking', 'working', 'delegating', 'done', 'error', 'idle'],
  token_type: ['input', 'output', 'cache_read', 'cache_write'],
  outcome: ['completed', 'failed', 'interrupted'],
};

/** Problems with the selectors of one expression: unknown metrics, labels and label values. */
export function selectorProblems(expr: string, known = knownMetrics()): string[] {
  const problems: string[] = [];
  for (const s of scan(expr).selectors) {
    if (!known.has(s.name)) {
      problems.push(`unknown metric ${s.name}`);
      continue;
    }
    const labels = known.get(s.name);
    for (const m of s.matchers) {
      if (labels && !labels.includes(m.label)) problems.push(`${s.name} has no label ${m.label}`);
      const allowed = LABEL_VALUES[m.label];
      if (allowed && !m.value.startsWith('$') && /^[a-z_|]+$/.test(m.value)) {
        for (const v of m.value.split('|'))
          if (!allowed.includes(v)) problems.push(`${m.label}="${v}" is not one of ${allowed.join(', ')}`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// promtool

export const PROMTOOL = process.env.PROMTOOL ?? 'promtool';
export const promtoolAvailable = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' }).status === 0;
/** Set CODING_AGENT_EXPORTER_SKIP_PROMTOOL=1 to skip (not fail) when promtool is missing. */
export const skipPromtool = !promtoolAvailable && process.env.CODING_AGENT_EXPORTER_SKIP_PROMTOOL === '1';

/**
 * Runs promtool without blocking the test worker: `test rules` takes a minute on a busy machine,
 * and a worker whose event loop stays blocked that long loses vitest's calls to its main process
 * (they time out after 60 s).
 */
export function promtool(args: string[], cwd = ROOT): Promise<{ status: number | null; output: string }> {
  if (!promtoolAvailable) {
    throw new Error(
      `promtool not found (install Debian/Ubuntu package "prometheus", or set PROMTOOL=/path/to/promtool; ` +
        'CODING_AGENT_EXPORTER_SKIP_PROMTOOL=1 skips these tests)',
    );
  }
  return new Promise((resolve) => {
    const child = spawn(PROMTOOL, args, { cwd, timeout: 120_000 });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => (output += String(e)));
    child.on('close', (status) => resolve({ status, output }));
  });
}

// ---------------------------------------------------------------------------------------------
// Markdown

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    out.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .trim()
        .replace(/\s/g, '-'),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// XML property lists (launchd)

export type PlistValue = string | number | boolean | Date | Buffer | PlistValue[] | { [key: string]: PlistValue };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const XML_DECLARATION = /^<\?xml\s[^?]*\?>/;
const PLIST_DOCTYPE = /^<!DOCTYPE\s+plist\s[^>]*>/;

/**
 * Where text from `i` on is past whitespace, comments (none with `--` inside: `fail` says so,
 * at the comment) and any of the `prolog` declarations: for the plist and the XML parser alike.
 */
function pastTrivia(
  text: string,
  i: number,
  fail: (what: string, at: number) => never,
  prolog: readonly RegExp[],
): number {
  for (;;) {
    const rest = text.slice(i);
    const ws = /^\s+/.exec(rest);
    if (ws) i += ws[0].length;
    else if (rest.startsWith('<!--')) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) fail('an unclosed comment', i);
      if (text.slice(i + 4, end).includes('--')) fail('"--" inside a comment', i);
      i = end + 3;
    } else {
      const declaration = prolog.map((p) => p.exec(rest)).find((m) => m !== null);
      if (!declaration) return i;
      i += declaration[0].length;
    }
  }
}

/**
 * An XML property list as `plutil -lint` checks it: well-formed XML (a declaration, a DOCTYPE,
 * comments without `--`), one `<plist>` holding one value, dicts of unique keys each followed by
 * a value, and typed scalars that read as their type. Throws naming what is wrong and where.
 */
export function parsePlist(text: string): PlistValue {
  let i = 0;
  const fail = (what: string, at = i): never => {
    throw new Error(`plist: ${what} at line ${text.slice(0, at).split('\n').length}`);
  };
  // Whitespace, comments and (before the root) the declaration and DOCTYPE.
  const skip = (prolog = false) => {
    i = pastTrivia(text, i, fail, prolog ? [XML_DECLARATION, PLIST_DOCTYPE] : []);
  };
  const tag = (): { name: string; close: boolean; empty: boolean; attrs: string } => {
    const m = /^<(\/?)([A-Za-z]+)((?:\s+[A-Za-z]+="[^"<]*")*)\s*(\/?)>/.exec(text.slice(i));
    if (!m) fail('a malformed or missing tag');
    i += m![0].length;
    return { name: m![2]!, close: m![1] === '/', empty: m![4] === '/', attrs: m![3]! };
  };
  const expectClose = (name: string) => {
    skip();
    const t = tag();
    if (!t.close || t.name !== name) fail(`</${name}> expected, <${t.close ? '/' : ''}${t.name}> found`);
  };
  const textUntilClose = (name: string): string => {
    const end = text.indexOf('<', i);
    const raw = text.slice(i, end < 0 ? text.length : end);
    i += raw.length;
    const decoded = raw.replace(
      /&([a-z]+);|&/g,
      (all, e: string | undefined) => (e && ENTITIES[e]) ?? fail(`a bare or unknown entity ${all}`),
    );
    const t = tag();
    if (!t.close || t.name !== name) fail(`</${name}> expected`);
    return decoded;
  };
  const value = (): PlistValue => {
    skip();
    const t = tag();
    if (t.close) fail(`an unexpected </${t.name}>`);
    const scalar = (parse: (s: string) => PlistValue | undefined): PlistValue => {
      const s = t.empty ? '' : textUntilClose(t.name);
      return parse(s) ?? fail(`<${t.name}> holding "${s}"`);
    };
    switch (t.name) {
      case 'true':
      case 'false':
        if (!t.empty) expectClose(t.name);
        return t.name === 'true';
      case 'string':
        return scalar((s) => s);
      case 'integer':
        return scalar((s) => (/^\s*[+-]?\d+\s*$/.test(s) ? Number(s) : undefined));
      case 'real':
        return scalar((s) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : undefined));
      case 'date':
        return scalar((s) => (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(s) ? new Date(s) : undefined));
      case 'data':
        return scalar((s) => (/^[A-Za-z0-9+/=\s]*$/.test(s) ? Buffer.from(s, 'base64') : undefined));
      case 'array': {
        const out: PlistValue[] = [];
        if (t.empty) return out;
        for (skip(); !text.startsWith('</', i); skip()) out.push(value());
        expectClose('array');
        return out;
      }
      case 'dict': {
        const out: Record<string, PlistValue> = {};
        if (t.empty) return out;
        for (skip(); !text.startsWith('</', i); skip()) {
          const k = tag();
          if (k.close || k.empty || k.name !== 'key') fail(`<key> expected in a dict, <${k.name}> found`);
          const key = textUntilClose('key');
          if (Object.hasOwn(out, key)) fail(`the key ${key} twice`);
          skip();
          if (text.startsWith('</', i)) fail(`the key ${key} without a value`);
          out[key] = value();
        }
        expectClose('dict');
        return out;
      }
      default:
        return fail(`an unknown element <${t.name}>`);
    }
  };
  skip(true);
  const root = tag();
  if (root.name !== 'plist' || root.close || root.empty || !/\sversion="1\.0"/.test(root.attrs))
    fail('<plist version="1.0"> expected');
  const v = value();
  expectClose('plist');
  skip();
  if (i < text.length) fail('text after </plist>');
  return v;
}

/** An XML element: its name, attributes, child elements and text (entities decoded). */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Well-formed XML as a tree (a declaration, comments without `--`, one root, every tag closed in
 * order, attributes quoted and unique, no bare `&`). Throws naming what is wrong and where.
 */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const fail = (what: string, at = i): never => {
    throw new Error(`xml: ${what} at line ${text.slice(0, at).split('\n').length}`);
  };
  const decode = (s: string) =>
    s.replace(
      /&([a-z]+);|&/g,
      (all, e: string | undefined) => (e && ENTITIES[e]) ?? fail(`a bare or unknown entity ${all}`),
    );
  // Whitespace, comments and (before the root) the declaration.
  const skip = (prolog = false) => {
    i = pastTrivia(text, i, fail, prolog ? [XML_DECLARATION] : []);
  };
  const element = (): XmlElement => {
    const m = /^<([A-Za-z][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/.exec(text.slice(i));
    if (!m) return fail('a malformed or missing tag');
    i += m[0].length;
    const attrs: Record<string, string> = {};
    for (const [, k, v] of m[2]!.matchAll(/([\w:.-]+)="([^"<]*)"/g)) {
      if (Object.hasOwn(attrs, k!)) fail(`the attribute ${k} twice`);
      attrs[k!] = decode(v!);
    }
    const el: XmlElement = { name: m[1]!, attrs, children: [], text: '' };
    if (m[3] === '/') return el;
    for (;;) {
      const end = text.indexOf('<', i);
      if (end < 0) fail(`</${el.name}> missing`);
      el.text += decode(text.slice(i, end));
      i = end;
      if (text.startsWith('<!--', i)) skip();
      else if (text.startsWith('</', i)) {
        const close = /^<\/([A-Za-z][\w.-]*)\s*>/.exec(text.slice(i));
        if (close?.[1] !== el.name) fail(`</${el.name}> expected`);
        i += close![0].length;
        el.text = el.text.trim();
        return el;
      } else el.children.push(element());
    }
  };
  skip(true);
  const root = element();
  skip();
  if (i < text.length) fail('text after the root element');
  return root;
}
