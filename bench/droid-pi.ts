// The Droid and pi section of `npm run bench`: a cold read of each harness's files against a plain
// baseline that JSON.parses every line (and, for Droid, every settings document), on a seeded
// corpus written in the shapes of the captures in test/fixtures/captures/{droid,pi}.
//
//   BENCH_DROID_PI_MB  corpus size per harness (default 40)

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng, Text } from './corpus.js';
import { mismatches, mb, row, sec } from './report.js';
import { COLD_RUNS, gc, newExporter, work } from './runs.js';
import { addTokens, TOKEN_TYPES, zeroTokens, type Tokens } from './totals.js';

type Harness = 'droid' | 'pi';

const KB = 1024;
const same = (a: Tokens, b: Tokens) => TOKEN_TYPES.every((k) => a[k] === b[k]);

/** A request's usage: a large cached prompt, a few new tokens, an answer. */
function usage(rng: Rng): Tokens {
  return {
    input: rng.int(50, 4000),
    output: rng.int(20, 2000),
    cache_read: rng.int(10_000, 60_000),
    cache_write: rng.int(0, 3000),
  };
}

/** pi sessions under `<home>/.pi/agent/sessions`; returns their bytes and the tokens they hold. */
function writePi(
  home: string,
  rng: Rng,
  text: Text,
  bytes: number,
): { files: number; bytes: number; expected: Tokens } {
  const expected = zeroTokens();
  let written = 0;
  let files = 0;
  let t = Date.UTC(2026, 10, 1);
  while (written < bytes) {
    const dir = join(home, '.pi/agent/sessions', `--home-dev-src-app${files % 7}--`);
    mkdirSync(dir, { recursive: true });
    const id = rng.uuid();
    const stamp = () => new Date((t += rng.int(1, 3000))).toISOString();
    let n = 0;
    const entry = (type: string, extra: object) =>
      JSON.stringify({ type, id: (++n).toString(16).padStart(8, '0'), parentId: null, timestamp: stamp(), ...extra });
    const lines = [
      JSON.stringify({ type: 'session', version: 3, id, timestamp: stamp(), cwd: `/home/dev/src/app${files % 7}` }),
      entry('model_change', { provider: 'anthropic', modelId: 'claude-sonnet-4-5' }),
      entry('thinking_level_change', { thinkingLevel: 'off' }),
    ];
    const answer = (content: object[], stopReason: string) => {
      const u = usage(rng);
      addTokens(expected, u);
      return entry('message', {
        message: {
          role: 'assistant',
          content,
          api: 'anthropic-messages',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          usage: {
            input: u.input,
            output: u.output,
            cacheRead: u.cache_read,
            cacheWrite: u.cache_write,
            totalTokens: u.input + u.output + u.cache_read + u.cache_write,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason,
          timestamp: t,
          responseId: `msg_${rng.hex(24)}`,
        },
      });
    };
    for (let turn = rng.int(1, 30); turn > 0; turn--) {
      lines.push(
        entry('message', {
          message: {
            role: 'user',
            content: [{ type: 'text', text: text.code(rng.logUniform(40, 3000)) }],
            timestamp: t,
          },
        }),
      );
      for (let call = rng.int(0, 8); call > 0; call--) {
        const callId = `toolu_${rng.hex(24)}`;
        lines.push(
          answer(
            [
              { type: 'text', text: text.code(rng.logUniform(20, 800)) },
              {
                type: 'toolCall',
                id: callId,
                name: rng.pick(['read', 'bash', 'edit']),
                arguments: { path: text.code(40) },
              },
            ],
            'toolUse',
          ),
        );
        lines.push(
          entry('message', {
            message: {
              role: 'toolResult',
              toolCallId: callId,
              toolName: 'read',
              content: [{ type: 'text', text: text.code(rng.logUniform(KB, 60 * KB)) }],
              isError: rng.chance(0.05),
              timestamp: t,
            },
          }),
        );
      }
      lines.push(answer([{ type: 'text', text: text.code(rng.logUniform(100, 4000)) }], 'stop'));
    }
    const body = `${lines.join('\n')}\n`;
    writeFileSync(join(dir, `${new Date(t).toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`), body);
    written += Buffer.byteLength(body);
    files++;
  }
  return { files, bytes: written, expected };
}

/** Droid sessions (transcript and settings) under `<home>/.factory/sessions`. */
function writeDroid(
  home: string,
  rng: Rng,
  text: Text,
  bytes: number,
): { files: number; bytes: number; expected: Tokens } {
  const expected = zeroTokens();
  let written = 0;
  let files = 0;
  let t = Date.UTC(2026, 10, 1);
  while (written < bytes) {
    const dir = join(home, '.factory/sessions', `-home-dev-src-app${files % 7}`);
    mkdirSync(dir, { recursive: true });
    const id = rng.uuid();
    const stamp = () => new Date((t += rng.int(1, 3000))).toISOString();
    const total = zeroTokens();
    const message = (role: string, content: object[], extra: object = {}) =>
      JSON.stringify({ type: 'message', id: rng.uuid(), timestamp: stamp(), message: { role, content, ...extra } });
    const answer = (content: object[]) => {
      addTokens(total, usage(rng));
      return message('assistant', content, { modelId: 'claude-sonnet-4-5', reasoningEffort: 'none' });
    };
    const lines = [
      JSON.stringify({
        type: 'session_start',
        id,
        title: text.code(60),
        owner: 'dev',
        version: 2,
        cwd: `/home/dev/src/app${files % 7}`,
      }),
    ];
    for (let turn = rng.int(1, 30); turn > 0; turn--) {
      const prompt = rng.uuid();
      lines.push(
        JSON.stringify({
          type: 'message',
          id: `context-${prompt}`,
          timestamp: stamp(),
          message: {
            role: 'user',
            visibility: 'llm_only',
            content: [
              { type: 'text', text: `<system-reminder>\n${text.code(rng.int(5, 9) * KB)}\n</system-reminder>` },
            ],
          },
        }),
      );
      lines.push(
        JSON.stringify({
          type: 'message',
          id: prompt,
          timestamp: stamp(),
          message: {
            role: 'user',
            content: [{ type: 'text', text: text.code(rng.logUniform(40, 3000)) }],
            interactionMode: 'auto',
          },
        }),
      );
      for (let call = rng.int(0, 8); call > 0; call--) {
        const callId = `toolu_${rng.hex(24)}`;
        lines.push(
          answer([
            { type: 'text', text: text.code(rng.logUniform(20, 800)) },
            {
              type: 'tool_use',
              id: callId,
              name: rng.pick(['Read', 'Execute', 'Grep']),
              input: { command: text.code(40) },
            },
          ]),
        );
        lines.push(
          message('user', [
            {
              type: 'tool_result',
              tool_use_id: callId,
              is_error: rng.chance(0.05),
              content: text.code(rng.logUniform(KB, 60 * KB)),
            },
          ]),
        );
      }
      lines.push(answer([{ type: 'text', text: text.code(rng.logUniform(100, 4000)) }]));
      lines.push(
        JSON.stringify({ type: 'agent_turn_outcome', turnId: prompt, reason: 'completed', resultKind: 'text' }),
      );
    }
    const body = `${lines.join('\n')}\n`;
    const tokenUsage = {
      inputTokens: total.input,
      outputTokens: total.output,
      cacheCreationTokens: total.cache_write,
      cacheReadTokens: total.cache_read,
      thinkingTokens: 0,
      factoryCredits: 0,
    };
    const settings = JSON.stringify(
      {
        model: 'claude-sonnet-4-5',
        providerLock: 'anthropic',
        tokenUsage,
        childInclusiveTokenUsageBySessionId: {},
        inclusiveTokenUsage: tokenUsage,
      },
      null,
      2,
    );
    writeFileSync(join(dir, `${id}.jsonl`), body);
    writeFileSync(join(dir, `${id}.settings.json`), settings);
    addTokens(expected, total);
    written += Buffer.byteLength(body) + Buffer.byteLength(settings);
    files += 2;
  }
  return { files, bytes: written, expected };
}

/** Every file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The plain way: every file read whole, every line (or document) JSON.parsed, usage summed. */
function baseline(harness: Harness, home: string): Tokens {
  const totals = zeroTokens();
  for (const path of filesUnder(home)) {
    const whole = readFileSync(path, 'utf8');
    if (path.endsWith('.settings.json')) {
      const u = (JSON.parse(whole) as { tokenUsage: Record<string, number> }).tokenUsage;
      addTokens(totals, {
        input: u.inputTokens!,
        output: u.outputTokens!,
        cache_read: u.cacheReadTokens!,
        cache_write: u.cacheCreationTokens!,
      });
      continue;
    }
    for (const line of whole.split('\n')) {
      if (!line) continue;
      const rec = JSON.parse(line) as { message?: { role?: string; usage?: Record<string, number> } };
      const u = harness === 'pi' && rec.message?.role === 'assistant' ? rec.message.usage : undefined;
      if (u)
        addTokens(totals, { input: u.input!, output: u.output!, cache_read: u.cacheRead!, cache_write: u.cacheWrite! });
    }
  }
  return totals;
}

/** The exporter's cold read of `home` (a fresh state database), and the tokens it exported. */
async function exporter(harness: Harness, home: string, run: number): Promise<{ ms: number; tokens: Tokens }> {
  const t = performance.now();
  const agent = newExporter(join(work, `${harness}-state-${run}`), home);
  await agent.scanAll();
  const ms = performance.now() - t;
  const tokens = zeroTokens();
  for (const p of agent.families().find((f) => f.def.name === 'coding_agent_tokens')?.points ?? []) {
    if (p.labels.harness === harness) tokens[p.labels.token_type as keyof Tokens] += p.value;
  }
  await agent.stop();
  return { ms, tokens };
}

/** Adds the Droid and pi rows to the report (fastest of three alternating runs each). */
export async function benchDroidAndPi(seed: number): Promise<void> {
  const size = Number(process.env.BENCH_DROID_PI_MB ?? 40) * 1024 * KB;
  const rng = new Rng(seed);
  const text = new Text(rng);
  for (const [harness, write] of [
    ['droid', writeDroid],
    ['pi', writePi],
  ] as const) {
    const home = join(work, `${harness}-home`);
    const corpus = write(home, rng, text, size);
    const base: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      gc();
      const t = performance.now();
      const b = baseline(harness, home);
      base.push(performance.now() - t);
      gc();
      const e = await exporter(harness, home, i);
      cold.push(e.ms);
      for (const [who, got] of [
        ['baseline', b],
        ['exporter', e.tokens],
      ] as const) {
        if (!same(got, corpus.expected))
          mismatches.push(`${harness} ${who}: expected ${JSON.stringify(corpus.expected)}, got ${JSON.stringify(got)}`);
      }
    }
    const ratio = Math.min(...base) / Math.min(...cold);
    row(
      `${harness}: ${corpus.files} files, ${mb(corpus.bytes)}; baseline / exporter cold read, in-process`,
      `${sec(Math.min(...base))} / ${sec(Math.min(...cold))} = ${ratio.toFixed(1)}x`,
    );
  }
  row(
    'totals: droid and pi, baseline = exporter = generator',
    mismatches.some((m) => /^(droid|pi) /.test(m)) ? 'differ' : 'equal',
    'exact',
    !mismatches.some((m) => /^(droid|pi) /.test(m)),
  );
}
