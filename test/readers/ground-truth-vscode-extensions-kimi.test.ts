// The VS Code extensions' and CLIs' sample HOME (written to the formats of the VS Code extensions
// of Cline, Roo Code and Kilo Code, and of Kimi CLI, which do not run here, with a ground truth of
// every session): each reader run through a real collector and store, and every session checked on
// what its harness records.

import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Collector } from '../../src/collectors/collector.js';
import { cline } from '../../src/readers/cline/reader.js';
import { kilo } from '../../src/readers/kilo/reader.js';
import { kimiCli } from '../../src/readers/kimi-cli/reader.js';
import { rooCode } from '../../src/readers/roo-code/reader.js';
import { statusOf } from '../../src/session/status.js';
import type { Truth } from '../helpers/ground-truth.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome, type TallyStore } from '../helpers/tally.js';

// A copy outside this repository: a project is named after the git repository a cwd is in.
const HOME = tempDir();
cpSync(join(FIXTURES, 'homes/vscode-extensions-and-clis'), HOME, { recursive: true });
const truth = JSON.parse(readFileSync(join(HOME, 'ground-truth.vscode-extensions-kimi.json'), 'utf8')) as {
  now: string;
  sessions: Truth[];
};

const NOW = Date.parse(truth.now);
const OPTS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };
const home = (p: string) => join(HOME, p);
const tasks = (userDir: string, ext: string) => home(`${userDir}/User/globalStorage/${ext}/tasks`);
const USER_DIRS = ['.config/Code', '.config/VSCodium', '.vscode-server/data', 'Library/Application Support/Cursor'];

describe.each([
  { reader: cline, roots: USER_DIRS.map((d) => tasks(d, 'saoudrizwan.claude-dev')) },
  { reader: rooCode, roots: USER_DIRS.map((d) => tasks(d, 'rooveterinaryinc.roo-cline')) },
  { reader: kilo, roots: USER_DIRS.map((d) => tasks(d, 'kilocode.kilo-code')) },
  { reader: kimiCli, roots: [home('.kimi/sessions')] },
])('$reader.harness on the sample HOME of VS Code extensions and CLIs', ({ reader, roots }) => {
  // Kimi CLI: a subagent's log belongs to its parent session (as Claude Code's and Gemini CLI's
  // do): its tokens count there, its turns do not (its prompt is the parent's instruction).
  const all = truth.sessions.filter((s) => s.harness === reader.harness);
  const sessions = all.filter((s) => !(reader.harness === 'kimi-cli' && s.parent_session_id));
  let store: TallyStore;
  let collector: Collector<unknown>;
  beforeAll(async () => {
    ({ store, collector } = await readHome(reader, ...roots));
  });

  it('reads every file without skipping anything', () => {
    expect(collector.stats.success).toBe(true);
    expect(collector.stats.skipped).toEqual(new Map());
  });

  it('finds every session in every editor user dir, and its default roots name them', () => {
    expect([...store.sessions.values()].map((s) => s.id).sort()).toEqual(sessions.map((s) => s.session_id).sort());
    const defaults = reader.defaultRoots({}, HOME);
    for (const r of roots) expect(defaults).toContain(r);
  });

  // Not a series of 0: none at all (the extensions and Kimi CLI write no reasoning).
  it('makes no reasoning series where the harness records none', () => {
    expect(all.every((s) => s.tokens.reasoning === null)).toBe(true);
    expect([...store.counters.values()].filter((c) => c.metric === 'reasoningTokens')).toEqual([]);
  });

  it.each(sessions.map((s) => [s.session_id, s] as const))('session %s', (_, t) => {
    const s = store.sessions.get(`${reader.harness}/${t.session_id}`)!;
    const tally = store.bySession.get(`${reader.harness}/${t.session_id}`) ?? new Map<string, number>();
    const n = (k: string) => tally.get(k) ?? 0;
    const children = all.filter((c) => c.parent_session_id === t.session_id && reader.harness === 'kimi-cli');
    const sum = (k: 'input' | 'output' | 'cache_read' | 'cache_write') =>
      [t, ...children].reduce((a, c) => a + (c.tokens[k] ?? 0), 0);
    expect(s.project).toBe(t.project);
    expect(s.cwd).toBe(t.cwd!.replace('$HOME', '/home/dev'));
    expect(s.model).toBe(t.model);
    expect({ ...s.tokens, cacheWrite1h: 0 }).toEqual({
      input: sum('input'),
      output: sum('output'),
      cacheRead: sum('cache_read'),
      cacheWrite: sum('cache_write'),
      reasoning: 0,
      cacheWrite1h: 0,
    });
    if (t.cost_usd !== null) expect(s.costUsd).toBeCloseTo(t.cost_usd, 10);
    expect(n('prompts')).toBe(t.prompts);
    // Kilo and Roo's question (`ask:"followup"`) is the `ask_followup_question` tool's: a call
    // (as Claude Code's AskUserQuestion is), which the ground truth does not count.
    const question = t.status_reason === 'question' ? 1 : 0;
    expect(n('toolCalls')).toBe((t.tool_calls ?? 0) + question);
    expect(n('toolErrors')).toBe(t.tool_errors ?? 0);
    expect(n('subagents')).toBe(t.subagents);
    expect(n('compactions')).toBe(t.compactions ?? 0);
    expect({ completed: n('turns:completed'), failed: n('turns:failed'), interrupted: n('turns:interrupted') }).toEqual(
      t.turns,
    );
    const status = statusOf(s, undefined, NOW, OPTS, reader.facts);
    expect({ status: status.status, reason: status.reason }).toEqual({ status: t.status, reason: t.status_reason });
  });
});
