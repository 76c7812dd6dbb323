// List prices per model, from the price table of @pydantic/genai-prices (MIT, maintained by
// Pydantic, updated with every release), bundled at build time by scripts/gen-prices.mjs: cache
// read and write prices, one-hour cache writes and long-context tiers for Anthropic, OpenAI,
// Google and many more, offline. Models are matched as the library matches them; a test checks
// that every model of the table is found and priced as the library itself does.

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD } from '../files/package-root.js';
import type { Usage } from '../session/types.js';

/** USD per million tokens: a flat price, or a base price with tiers by the request's prompt size. */
export type Rate = number | { base: number; tiers: { start: number; price: number }[] };

export interface ModelPrice {
  input_mtok?: Rate;
  output_mtok?: Rate;
  cache_read_mtok?: Rate;
  cache_write_mtok?: Rate;
  cache_write_1h_mtok?: Rate;
}

export interface PriceTable {
  readonly source: string;
  readonly version: string;
  /** Cost in USD of one request made at `at` (ms), or undefined when the model has no price. */
  cost(model: string, u: Usage, tierInput: number, at: number): number | undefined;
  /** Whether the table has a price for the model. */
  has(model: string): boolean;
  /** Context window of the model, where the table knows it. */
  contextWindow(model: string): number | undefined;
  /** The table's provider of the model (`anthropic`, `openai`, `google`, …), where it knows the model. */
  provider(model: string): string | undefined;
}

function rate(r: Rate | undefined, tierInput: number): number | undefined {
  if (r === undefined || typeof r === 'number') return r;
  let price = r.base;
  for (const t of r.tiers) if (tierInput > t.start) price = t.price;
  return price;
}

/** Cost of a request: each kind of token at its own price; kinds without one fall back to their parent's. */
function priceRequest(p: ModelPrice, u: Usage, tierInput: number): number {
  const input = rate(p.input_mtok, tierInput) ?? 0;
  const write = rate(p.cache_write_mtok, tierInput) ?? input;
  const write1h = rate(p.cache_write_1h_mtok, tierInput) ?? write;
  return (
    (u.input * input +
      u.cacheRead * (rate(p.cache_read_mtok, tierInput) ?? input) +
      (u.cacheWrite - u.cacheWrite1h) * write +
      u.cacheWrite1h * write1h +
      u.output * (rate(p.output_mtok, tierInput) ?? 0)) /
    1e6
  );
}

interface Resolved {
  prices?: TableModel['prices'];
  contextWindow?: number;
  provider?: string;
}

/** How the table says which model ids a provider or model covers (case-insensitive). */
type Match =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { or: Match[] }
  | { and: Match[] };

interface TableModel {
  id: string;
  match: Match;
  context_window?: number;
  /** Flat prices, or prices in force from a date or at a time of day (the last one in force wins). */
  prices: ModelPrice | { constraint?: Constraint; prices: ModelPrice }[];
}

interface TableProvider {
  id: string;
  model_match?: Match;
  fallback_model_providers?: string[];
  models: TableModel[];
}

interface Table {
  source: string;
  version: string;
  providers: TableProvider[];
}

function matches(m: Match, id: string): boolean {
  if ('or' in m) return m.or.some((x) => matches(x, id));
  if ('and' in m) return m.and.every((x) => matches(x, id));
  if ('equals' in m) return id === m.equals.toLowerCase();
  if ('starts_with' in m) return id.startsWith(m.starts_with.toLowerCase());
  if ('ends_with' in m) return id.endsWith(m.ends_with.toLowerCase());
  if ('contains' in m) return id.includes(m.contains.toLowerCase());
  return new RegExp(m.regex).test(id);
}

function findModel(table: Table, provider: TableProvider, id: string): TableModel | undefined {
  const own = provider.models.find((m) => matches(m.match, id));
  if (own) return own;
  for (const fallback of provider.fallback_model_providers ?? []) {
    const p = table.providers.find((x) => x.id === fallback);
    const m = p?.models.find((x) => matches(x.match, id));
    if (m) return m;
  }
  return undefined;
}

/** `…-20250929` as `…-2025-09-29`, the other way the table writes dated ids. */
function dashedDate(id: string): string {
  return id.replace(/(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g, '$1$2-$3-$4');
}

type Constraint =
  { type: 'start_date'; start_date: string } | { type: 'time_of_date'; start_time: string; end_time: string };

/** Seconds after midnight UTC of a time of day written `HH:MM:SS[.fff](Z|±HH:MM)`. */
function utcSeconds(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) return NaN;
  const offset = m[4] === 'Z' ? 0 : (m[5] === '+' ? 1 : -1) * (Number(m[6]) * 3600 + Number(m[7]) * 60);
  return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) - offset + 86400) % 86400;
}

function inForce(c: Constraint, at: number): boolean {
  if (c.type === 'start_date') return at >= Date.parse(c.start_date);
  const d = new Date(at);
  const s = d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() + d.getUTCMilliseconds() / 1000;
  const start = utcSeconds(c.start_time);
  const end = utcSeconds(c.end_time);
  return end < start ? s >= start || s < end : s >= start && s < end;
}

/** The prices in force at `at` (ms): off-peak hours and price changes apply to when a request was made. */
function pricesAt(prices: TableModel['prices'], at: number): ModelPrice {
  if (!Array.isArray(prices)) return prices;
  for (let i = prices.length - 1; i >= 0; i--) {
    const { constraint, prices: p } = prices[i]!;
    if (!constraint || inForce(constraint, at)) return p;
  }
  return prices[0]!.prices;
}

/** The table's model for a model id as a harness writes it, or undefined. */
export function findInTable(table: Table, model: string): (Resolved & { id: string }) | undefined {
  // Provider prefixes (`anthropic/…`, `openrouter/qwen/…`) and Claude's `[1m]` suffix are not part of the id.
  for (const candidate of new Set([model, model.replace(/\[.*\]$/, ''), model.split('/').pop()!])) {
    const id = candidate.toLowerCase().trim();
    const provider = table.providers.find((p) => p.model_match && matches(p.model_match, id));
    if (!provider) continue;
    const m = findModel(table, provider, id) ?? findModel(table, provider, dashedDate(id));
    if (m) return { id: m.id, prices: m.prices, contextWindow: m.context_window, provider: provider.id };
  }
  return undefined;
}

/** The table bundled at build time (scripts/gen-prices.mjs), in the build. */
const BUNDLED = pathToFileURL(join(BUILD, 'pricing', 'genai-prices.json'));
const parsed = new Map<string, Table>();

/** A table as gen-prices writes it (the bundled one unless told), parsed once. */
export function bundledTable(file: URL = BUNDLED): Table {
  let table = parsed.get(file.href);
  if (!table) parsed.set(file.href, (table = JSON.parse(readFileSync(file, 'utf8')) as Table));
  return table;
}

/**
 * A table's source and version without parsing its 300 KB (6 ms or more of every start-up):
 * gen-prices writes them first. A table of another shape is parsed.
 */
function versionOf(file: URL): { source: string; version: string } {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(256);
  try {
    const m = /^\{"source":"([^"\\]*)","version":"([^"\\]*)",/.exec(
      head.toString('utf8', 0, readSync(fd, head, 0, head.length, 0)),
    );
    if (m) return { source: m[1]!, version: m[2]! };
  } finally {
    closeSync(fd);
  }
  return bundledTable(file);
}

/**
 * The bundled table (`file`: another gen-prices wrote), with `overrides` (model id → prices in the
 * same shape, USD per million tokens) taking precedence for exactly matching model ids. The table
 * is parsed when a model is first looked up: a restart that reads nothing new never parses it.
 */
export function createPriceTable(
  overrides: Record<string, ModelPrice & { context_window?: number }> = {},
  file = BUNDLED,
): PriceTable {
  const { source, version } = versionOf(file);
  const cache = new Map<string, Resolved>();
  const resolve = (model: string): Resolved => {
    let r = cache.get(model);
    if (!r) {
      const o = overrides[model];
      r = o ? { prices: o, contextWindow: o.context_window } : (findInTable(bundledTable(file), model) ?? {});
      cache.set(model, r);
    }
    return r;
  };
  return {
    source: Object.keys(overrides).length > 0 ? `${source}+overrides` : source,
    version,
    cost: (model, u, tierInput, at) => {
      const p = resolve(model).prices;
      return p ? priceRequest(pricesAt(p, at), u, tierInput) : undefined;
    },
    has: (model) => resolve(model).prices !== undefined,
    contextWindow: (model) => resolve(model).contextWindow,
    provider: (model) => resolve(model).provider,
  };
}

/** Reads a price override file: `{ "<model id>": { "input_mtok": 3, "output_mtok": 15, ... } }`. */
export function readOverrides(path: string): Record<string, ModelPrice> {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('expected an object of model ids');
  for (const [model, p] of Object.entries(data as Record<string, unknown>)) {
    if (p === null || typeof p !== 'object') throw new Error(`${model}: expected an object of prices`);
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) {
      if (
        ![
          'input_mtok',
          'output_mtok',
          'cache_read_mtok',
          'cache_write_mtok',
          'cache_write_1h_mtok',
          'context_window',
        ].includes(k)
      ) {
        throw new Error(`${model}.${k}: unknown price key`);
      }
      if (typeof v !== 'number' || !(v >= 0)) throw new Error(`${model}.${k}: expected a non-negative number`);
    }
  }
  return data as Record<string, ModelPrice>;
}

/** The bundled table with the override file's prices (none: `path` empty); a bad file throws, naming it. */
export function configuredPrices(path: string): PriceTable {
  try {
    return createPriceTable(path ? readOverrides(path) : {});
  } catch (e) {
    throw new Error(`pricing.overridesFile (${path}): ${(e as Error).message}`);
  }
}
