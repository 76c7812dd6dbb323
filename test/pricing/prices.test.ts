import { calcPrice } from '@pydantic/genai-prices';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundledTable, createPriceTable, findInTable, readOverrides } from '../../src/pricing/prices.js';
import type { Usage } from '../../src/session/types.js';
import { tempDir } from '../helpers/run.js';

const usage = (input: number, cacheRead: number, cacheWrite: number, output: number, cacheWrite1h = 0): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  cacheWrite1h,
  reasoning: 0,
});

// Requests are priced at the time they were made (price changes, off-peak hours).
const AT = Date.UTC(2026, 10, 30, 12);

describe('prices', () => {
  const table = createPriceTable();

  it.each([
    ['claude-sonnet-4-5', usage(1234, 789, 100, 56)],
    ['claude-sonnet-4-5', usage(150_000, 40_000, 20_000, 900, 5_000)], // over 200k: the long-context tier for the whole request
    ['claude-opus-4-7', usage(5000, 100_000, 3000, 2000, 3000)],
    ['claude-haiku-4-5', usage(10, 0, 0, 10)],
    ['gpt-5', usage(345, 789, 0, 56)],
    ['gpt-5.2-codex', usage(1000, 9000, 0, 300)],
    ['gemini-2.5-pro', usage(150_000, 60_000, 0, 1000)],
    ['gemini-2.5-flash', usage(445, 789, 0, 68)],
  ])('%s costs what the bundled library computes', (model, u) => {
    const tierInput = u.input + u.cacheRead + u.cacheWrite;
    const reference = calcPrice(
      {
        input_tokens: tierInput,
        cache_read_tokens: u.cacheRead,
        cache_write_tokens: u.cacheWrite,
        cache_write_1h_tokens: u.cacheWrite1h,
        output_tokens: u.output,
      },
      model,
      { timestamp: new Date(AT) },
    );
    expect(reference).not.toBeNull();
    expect(table.cost(model, u, tierInput, AT)).toBeCloseTo(reference!.total_price, 12);
  });

  it.each([0, 2, 5, 8, 12, 17, 23].map((h) => [h]))(
    'finds and prices every model of the bundled table as the library does, at %i:30 UTC',
    (hour) => {
      const table = bundledTable();
      const at = Date.UTC(2026, 10, 30, hour, 30);
      const u = usage(150_000, 60_000, 20_000, 3_000, 5_000); // above the 200k tiers
      const tierInput = u.input + u.cacheRead + u.cacheWrite;
      let checked = 0;
      for (const provider of table.providers) {
        for (const m of provider.models) {
          for (const id of [m.id, m.id.toUpperCase(), `${provider.id}/${m.id}`]) {
            const ours = findInTable(table, id);
            const library = (x: string) =>
              calcPrice(
                {
                  input_tokens: tierInput,
                  cache_read_tokens: u.cacheRead,
                  cache_write_tokens: u.cacheWrite,
                  cache_write_1h_tokens: u.cacheWrite1h,
                  output_tokens: u.output,
                },
                x,
                { timestamp: new Date(at) },
              );
            // Like the exporter: the id as written, then without a provider prefix.
            const theirs = library(id) ?? library(id.split('/').pop()!);
            expect(ours?.id, id).toBe(theirs?.model.id);
            if (!theirs || !ours?.prices) continue;
            // Per-request fees are not token prices; the exporter leaves them out.
            const perRequest =
              typeof theirs.model_price.requests_kcount === 'number' ? theirs.model_price.requests_kcount / 1000 : 0;
            expect(createPriceTable().cost(id, u, tierInput, at), id).toBeCloseTo(theirs.total_price - perRequest, 9);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(1000);
    },
  );

  it("prices a request at the time it was made (DeepSeek's off-peak hours)", () => {
    const u = usage(1e6, 0, 0, 0);
    const peak = table.cost('deepseek-chat', u, 1e6, Date.UTC(2026, 10, 30, 3))!; // 00:30–16:30 UTC
    const offPeak = table.cost('deepseek-chat', u, 1e6, Date.UTC(2026, 10, 30, 20))!;
    expect(offPeak).toBeLessThan(peak);
  });

  it('prices the captured Claude Code answer as Claude Code itself does (cost-state: $0.0104112)', () => {
    const cost =
      table.cost('claude-sonnet-4-5', usage(1234, 789, 100, 56), 2123, AT)! +
      table.cost('claude-sonnet-4-5', usage(1300, 900, 50, 60), 2250, AT)!;
    expect(cost).toBeCloseTo(0.0104112, 12);
  });

  it('knows context windows, and nothing of unknown models', () => {
    expect(table.contextWindow('claude-sonnet-4-5')).toBe(200_000);
    expect(table.cost('gpt-5-fake', usage(1, 1, 1, 1), 3, AT)).toBeUndefined();
    expect(table.cost('anthropic/claude-sonnet-4-5', usage(1e6, 0, 0, 0), 1e6, AT)).toBeCloseTo(6, 9); // provider prefix, >200k tier
  });

  it('takes overrides from a file, and rejects a bad one naming the key', () => {
    const dir = tempDir();
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ 'my-local-model': { input_mtok: 1, output_mtok: 2, context_window: 32000 } }));
    const t = createPriceTable(readOverrides(good));
    expect(t.cost('my-local-model', usage(1e6, 1e6, 0, 1e6), 2e6, AT)).toBeCloseTo(4, 9); // cache reads at the input price
    expect(t.contextWindow('my-local-model')).toBe(32000);
    expect(t.source).toBe('genai-prices+overrides');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ m: { input_mtok: -1 } }));
    expect(() => readOverrides(bad)).toThrow(/m\.input_mtok/);
    writeFileSync(bad, JSON.stringify({ m: { inputs: 1 } }));
    expect(() => readOverrides(bad)).toThrow(/m\.inputs: unknown price key/);
  });
});

describe('the price table at start-up', () => {
  // The bundled table as gen-prices writes it: source and version first.
  const text = `${JSON.stringify(bundledTable())}\n`;
  const written = (name: string, body: string) => {
    const path = join(tempDir(), name);
    writeFileSync(path, body);
    return pathToFileURL(path);
  };

  it('names its source and version without parsing the table, which is parsed when a model is first priced', () => {
    const { source, version } = bundledTable();
    // Only the table's head is good: a parse of the whole would fail.
    const table = createPriceTable({}, written('cut.json', text.slice(0, text.length >> 1)));
    expect([table.source, table.version]).toEqual([source, version]);
    expect(() => table.cost('claude-sonnet-4-5', usage(10, 0, 0, 10), 10, AT)).toThrow(SyntaxError);
  });

  it('prices as the bundled table does, and reads the source and version of a table written in another order', () => {
    const whole = createPriceTable({}, written('whole.json', text));
    expect(whole.cost('claude-sonnet-4-5', usage(10, 0, 0, 10), 10, AT)).toBe(
      createPriceTable().cost('claude-sonnet-4-5', usage(10, 0, 0, 10), 10, AT),
    );
    const { source, version, providers } = bundledTable();
    const reordered = createPriceTable({}, written('reordered.json', JSON.stringify({ providers, version, source })));
    expect([reordered.source, reordered.version, reordered.contextWindow('claude-sonnet-4-5')]).toEqual([
      source,
      version,
      whole.contextWindow('claude-sonnet-4-5'),
    ]);
  });
});
