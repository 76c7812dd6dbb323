// The baseline: what a plain Node tool does (ccusage reads files this way). Each file is read whole
// (readFileSync + split, the fastest of the plain approaches here; readline over a stream is
// slower), every line is JSON.parse'd, and tokens are deduplicated the way ccusage does: a Claude
// response once per message.id + requestId, a Codex rollout by its last cumulative total.

import { Database } from '../test/helpers/sqlite.js';
import { readFileSync } from 'node:fs';
import { corpusFiles } from './corpus.js';
import { addTokens, zeroTotals, type Totals } from './totals.js';

interface ClaudeLine {
  type?: string;
  requestId?: string;
  message?: { id?: string; usage?: Record<string, number> };
}

interface CodexLine {
  type?: string;
  payload?: { type?: string; info?: { total_token_usage?: Record<string, number> } | null };
}

export function baselineScan(home: string): Totals {
  const totals = zeroTotals();
  const seen = new Set<string>();
  for (const { path } of corpusFiles(home)) {
    const codex = path.includes('/.codex/');
    let last: Record<string, number> | undefined;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      const rec = JSON.parse(line) as ClaudeLine & CodexLine;
      if (codex) {
        if (rec.type === 'event_msg' && rec.payload?.type === 'token_count')
          last = rec.payload.info?.total_token_usage ?? last;
      } else if (rec.type === 'assistant' && rec.message?.usage) {
        const key = `${rec.message.id}:${rec.requestId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const u = rec.message.usage;
        addTokens(totals['claude-code'], {
          input: u.input_tokens ?? 0,
          output: u.output_tokens ?? 0,
          cache_read: u.cache_read_input_tokens ?? 0,
          cache_write: u.cache_creation_input_tokens ?? 0,
        });
      }
    }
    if (last) {
      const cached = last.cached_input_tokens ?? 0;
      const written = last.cache_write_input_tokens ?? 0;
      addTokens(totals.codex, {
        input: (last.input_tokens ?? 0) - cached - written,
        output: last.output_tokens ?? 0,
        cache_read: cached,
        cache_write: written,
      });
    }
  }
  return totals;
}

/**
 * The baseline for an OpenCode database: what a plain reader does (ccusage reads it this way),
 * every part row's JSON parsed in Node, the step-finish parts' tokens summed (reasoning is beside
 * output in OpenCode's counts).
 */
export function storeBaselineScan(path: string): Totals {
  const totals = zeroTotals();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  for (const data of db.prepare('SELECT data FROM part').pluck().iterate() as IterableIterator<string>) {
    const part = JSON.parse(data) as {
      type?: string;
      tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
    };
    if (part.type !== 'step-finish' || !part.tokens) continue;
    const t = part.tokens;
    addTokens(totals.opencode, {
      input: t.input,
      output: t.output + t.reasoning,
      cache_read: t.cache.read,
      cache_write: t.cache.write,
    });
  }
  db.close();
  return totals;
}
