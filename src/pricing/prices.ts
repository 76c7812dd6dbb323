// List prices per model, from the bundled, offline price table of @pydantic/genai-prices (MIT,
// maintained by Pydantic, updated with every release): it knows cache read and write prices,
// one-hour cache writes and long-context tiers for Anthropic, OpenAI, Google and many others.
// The library's own calculation is too slow to run per request on large histories, so a model's
// price is looked up once and applied here; a test checks both agree.

import { calcPrice } from '@pydantic/genai-prices';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
  /** Cost of one request in USD, or undefined when the model has no price. */
  cost(model: string, u: Usage, tierInput: number): number | undefined;
  /** Context window of the model, where the table knows it. */
  contextWindow(model: string): number | undefined;
}

function rate(r: Rate | undefined, tierInput: number): number | undefined {
  if (r === undefined || typeof r === 'number') return r;
  let price = r.base;
  for (const t of r.tiers) if (tierInput > t.start) price = t.price;
  return price;
}

/** Cost of a request: each kind of token at its own price; kinds without one fall back to their parent's. */
export function priceRequest(p: ModelPrice, u: Usage, tierInput: number): number {
  const input = rate(p.input_mtok, tierInput) ?? 0;
  const write = rate(p.cache_write_mtok, tierInput) ?? input;
  const write1h = rate(p.cache_write_1h_mtok, tierInput) ?? write;
  return (
    u.input * input +
    u.cacheRead * (rate(p.cache_read_mtok, tierInput) ?? input) +
    (u.cacheWrite - u.cacheWrite1h) * write +
    u.cacheWrite1h * write1h +
    u.output * (rate(p.output_mtok, tierInput) ?? 0)
  ) / 1e6;
}

interface Resolved {
  price?: ModelPrice;
  contextWindow?: number;
}

function lookup(model: string): Resolved {
  // Provider prefixes (`anthropic/…`, `openrouter/qwen/…`) and Claude's `[1m]` suffix are not part of the id.
  const candidates = [model, model.replace(/\[.*\]$/, ''), model.split('/').pop()!];
  for (const id of candidates) {
    const r = calcPrice({ input_tokens: 1 }, id);
    if (r) {
      return {
        price: r.model_price as ModelPrice,
        contextWindow: r.model.context_window,
      };
    }
  }
  return {};
}

// The package does not export its package.json; it sits one folder above the entry point.
const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
const packageVersion = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The bundled table, with `overrides` (model id → prices in the same shape, USD per million
 * tokens) taking precedence for exactly matching model ids.
 */
export function createPriceTable(overrides: Record<string, ModelPrice & { context_window?: number }> = {}): PriceTable {
  const cache = new Map<string, Resolved>();
  const resolve = (model: string): Resolved => {
    let r = cache.get(model);
    if (!r) {
      const o = overrides[model];
      r = o ? { price: o, contextWindow: o.context_window } : lookup(model);
      cache.set(model, r);
    }
    return r;
  };
  return {
    source: Object.keys(overrides).length > 0 ? 'genai-prices+overrides' : 'genai-prices',
    version: packageVersion,
    cost: (model, u, tierInput) => {
      const p = resolve(model).price;
      return p ? priceRequest(p, u, tierInput) : undefined;
    },
    contextWindow: (model) => resolve(model).contextWindow,
  };
}

/** Reads a price override file: `{ "<model id>": { "input_mtok": 3, "output_mtok": 15, ... } }`. */
export function readOverrides(path: string): Record<string, ModelPrice> {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('expected an object of model ids');
  for (const [model, p] of Object.entries(data)) {
    if (p === null || typeof p !== 'object') throw new Error(`${model}: expected an object of prices`);
    for (const [k, v] of Object.entries(p)) {
      if (!['input_mtok', 'output_mtok', 'cache_read_mtok', 'cache_write_mtok', 'cache_write_1h_mtok', 'context_window'].includes(k)) {
        throw new Error(`${model}.${k}: unknown price key`);
      }
      if (typeof v !== 'number' || !(v >= 0)) throw new Error(`${model}.${k}: expected a non-negative number`);
    }
  }
  return data as Record<string, ModelPrice>;
}
