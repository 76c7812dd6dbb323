// The long-tail readers' section of `npm run bench:store`: a cold read of an Aider, Cursor agent
// and Antigravity CLI HOME (longtail-corpus.ts) by the exporter against a plain baseline that
// parses everything: every history line matched, every transcript line JSON.parsed with its
// chat's meta, every Antigravity row selected and every protobuf field decoded, recursively.
// In this process, alternating, the fastest of 3 runs each; the token totals must be exact.
//
//   BENCH_LONGTAIL_MB  corpus size (default 60, a third each)

import { Database } from '../test/helpers/sqlite.js';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Family } from '../src/metrics/snapshot.js';
import { decode } from '../src/readers/protobuf.js';
import { ensureLongtailCorpus } from './longtail-corpus.js';
import { mb, mismatches, row, sec } from './report.js';
import { COLD_RUNS, gc, newExporter, noChangeRescan, work } from './runs.js';

interface Found {
  aider: { input: number; output: number; cacheRead: number; cacheWrite: number };
  antigravity: { input: number; output: number; cacheRead: number };
  cursorPrompts: number;
}

const TOKENS =
  /^> Tokens: ([\d.]+k?) sent, (?:([\d.]+k?) cache write, )?(?:([\d.]+k?) cache hit, )?([\d.]+k?) received\./;
const count = (s: string | undefined) => (s ? Math.round(Number.parseFloat(s) * (s.endsWith('k') ? 1000 : 1)) : 0);

/** Every length-delimited field that decodes as a message, decoded in turn (a schema-less full parse). */
function decodeAll(bytes: Buffer, depth = 0): number {
  const m = depth < 8 ? decode(bytes) : undefined;
  let fields = 0;
  for (const values of m?.values() ?? []) {
    for (const value of values) fields += 1 + (Buffer.isBuffer(value) ? decodeAll(value, depth + 1) : 0);
  }
  return fields;
}

interface Files {
  aider: string[];
  cursor: string[];
  /** Cursor chat folders by chat id. */
  chats: Map<string, string>;
  antigravity: string[];
}

/** The corpus's files, as the generator laid them out. */
function listCorpus(home: string): Files {
  const ls = (dir: string) => readdirSync(dir).map((n) => join(dir, n));
  const cursor = join(home, '.cursor');
  return {
    aider: ls(join(home, 'src'))
      .flatMap(ls)
      .map((repo) => join(repo, '.aider.chat.history.md')),
    cursor: ls(join(cursor, 'projects'))
      .flatMap((p) => ls(join(p, 'agent-transcripts')))
      .map((d) => join(d, `${d.split('/').at(-1)}.jsonl`)),
    chats: new Map(
      ls(join(cursor, 'chats'))
        .flatMap(ls)
        .map((d) => [d.split('/').at(-1)!, d]),
    ),
    antigravity: ls(join(home, '.gemini', 'antigravity-cli', 'conversations')),
  };
}

function baseline(files: Files): Found {
  const found: Found = {
    aider: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    antigravity: { input: 0, output: 0, cacheRead: 0 },
    cursorPrompts: 0,
  };
  for (const path of files.aider) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const m = TOKENS.exec(line);
      if (!m) continue;
      const [sent, write, hit, received] = [count(m[1]), count(m[2]), count(m[3]), count(m[4])];
      found.aider.input += Math.max(0, sent - write - hit);
      found.aider.output += received;
      found.aider.cacheRead += hit;
      found.aider.cacheWrite += write;
    }
  }
  for (const path of files.cursor) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      const rec = JSON.parse(line) as { role?: string; message?: { content?: { text?: string }[] } };
      if (rec.role === 'user' && rec.message?.content?.some((b) => b.text?.includes('<user_query>')))
        found.cursorPrompts++;
    }
    // and the chat's meta: meta.json and the store's meta row
    const chat = files.chats.get(path.split('/').at(-2)!)!;
    JSON.parse(readFileSync(join(chat, 'meta.json'), 'utf8'));
    const db = new Database(join(chat, 'store.db'), { readonly: true });
    const row0 = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string };
    JSON.parse(Buffer.from(row0.value, 'hex').toString('utf8'));
    db.close();
  }
  for (const path of files.antigravity) {
    const db = new Database(path, { readonly: true });
    for (const r of db.prepare('SELECT * FROM steps').all() as { step_payload: Buffer }[]) decodeAll(r.step_payload);
    for (const r of db.prepare('SELECT data FROM gen_metadata').all() as { data: Buffer }[]) {
      decodeAll(r.data);
      const usage = decode(decode(r.data)?.get(1)?.[0] as Buffer)?.get(4)?.[0] as Buffer;
      const u = decode(usage);
      found.antigravity.input += (u?.get(2)?.[0] as number) ?? 0;
      found.antigravity.output += (u?.get(3)?.[0] as number) ?? 0;
      found.antigravity.cacheRead += (u?.get(5)?.[0] as number) ?? 0;
    }
    db.close();
  }
  return found;
}

/** What the exporter exported for the three harnesses. */
function exported(families: Family[]): Found {
  const found: Found = {
    aider: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    antigravity: { input: 0, output: 0, cacheRead: 0 },
    cursorPrompts: 0,
  };
  const key = { input: 'input', output: 'output', cache_read: 'cacheRead', cache_write: 'cacheWrite' } as const;
  for (const p of families.find((f) => f.def.name === 'coding_agent_tokens')?.points ?? []) {
    const k = key[p.labels.token_type as keyof typeof key];
    if (p.labels.harness === 'aider') found.aider[k] += p.value;
    if (p.labels.harness === 'antigravity-cli' && k !== 'cacheWrite') found.antigravity[k] += p.value;
  }
  for (const p of families.find((f) => f.def.name === 'coding_agent_prompts')?.points ?? []) {
    if (p.labels.harness === 'cursor-agent') found.cursorPrompts += p.value;
  }
  return found;
}

export async function longtailSection(): Promise<void> {
  const sizeMb = Number(process.env.BENCH_LONGTAIL_MB ?? 60);
  const seed = Number(process.env.BENCH_SEED ?? 1);
  const dir = process.env.BENCH_DIR
    ? join(process.env.BENCH_DIR, 'longtail')
    : join(tmpdir(), 'coding-agent-exporter-bench', `longtail-${sizeMb}mb-seed${seed}`);
  const { corpus } = ensureLongtailCorpus(dir, seed, sizeMb);
  const total = corpus.bytes.aider + corpus.bytes.cursor + corpus.bytes.antigravity;
  row(
    'long-tail HOME',
    `${mb(total)}: Aider ${corpus.files.aider} histories ${mb(corpus.bytes.aider)}, Cursor ${corpus.files.cursor} chats ${mb(corpus.bytes.cursor)}, Antigravity ${corpus.files.antigravity} databases ${mb(corpus.bytes.antigravity)}`,
  );
  // The baseline is handed the file lists (it does not search); the exporter finds them itself.
  const files = listCorpus(corpus.home);

  const baseMs: number[] = [];
  const coldMs: number[] = [];
  let base: Found | undefined;
  let cold: Found | undefined;
  for (let i = 0; i < COLD_RUNS; i++) {
    gc();
    let t = performance.now();
    base = baseline(files);
    baseMs.push(performance.now() - t);
    gc();
    t = performance.now();
    const agent = newExporter(join(work, `longtail-${i}`), corpus.home);
    await agent.scanAll();
    coldMs.push(performance.now() - t);
    cold = exported(agent.families());
    await agent.stop();
  }
  for (const [what, got] of [
    ['baseline', base!],
    ['exporter', cold!],
  ] as const) {
    const same = JSON.stringify(got) === JSON.stringify(corpus.expected);
    if (!same)
      mismatches.push(`long-tail ${what}: expected ${JSON.stringify(corpus.expected)}, got ${JSON.stringify(got)}`);
    row(`totals: long-tail ${what} = generator`, same ? 'equal' : 'differ', 'exact', same);
  }
  const runs = (ms: number[]) => `${sec(Math.min(...ms))} (runs: ${ms.map((m) => (m / 1000).toFixed(2)).join(', ')})`;
  row('long-tail baseline cold read: every line and protobuf field parsed', runs(baseMs));
  row('long-tail exporter cold read (all collectors, Aider searching the HOME)', runs(coldMs));
  row('  ratio baseline / exporter', `${(Math.min(...baseMs) / Math.min(...coldMs)).toFixed(1)}x`);
  const agent = newExporter(join(work, 'longtail-rescan'), corpus.home);
  await agent.scanAll();
  const rescan = await noChangeRescan(agent);
  row('long-tail no-change rescan (median of 11)', `${rescan.ms.toFixed(2)} ms (CPU ${rescan.cpuMs.toFixed(2)} ms)`);
  await agent.stop();
}
