// The editor stores' and CLIs' sample HOME (written to the formats of harness-formats-wave4.md,
// from each harness's own source where it is public, with a ground truth of every session): each
// reader run through a real collector and store, and every session checked on what its harness
// records: every token and dollar exact, no series of a value the harness does not record.

import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import { traeCli } from '../../src/readers/trae-cli/reader.js';
import { grok } from '../../src/readers/grok/reader.js';
import { openhands } from '../../src/readers/openhands/reader.js';
import { kiro } from '../../src/readers/kiro/reader.js';
import { qoder } from '../../src/readers/qoder/reader.js';
import { zed } from '../../src/readers/zed/reader.js';
import { cursor } from '../../src/readers/cursor/reader.js';
import { warp } from '../../src/readers/warp/reader.js';
import { copilotVscode } from '../../src/readers/copilot-vscode/reader.js';
import { statusOf } from '../../src/session/status.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';

// A copy outside this repository: a project is named after the git repository a cwd is in.
const HOME = tempDir();
cpSync(join(FIXTURES, 'homes/editor-stores-and-clis'), HOME, { recursive: true });

type Tokens = Record<'input' | 'output' | 'cache_read' | 'cache_write' | 'reasoning', number | null>;
interface Truth {
  harness: string;
  session_id: string;
  parent_session_id: string | null;
  project: string;
  cwd: string;
  model: string;
  tokens: Tokens;
  /** The session's usage is already in its parent's (Grok's and OpenHands' subagents). */
  tokens_included_in_parent?: true;
  cost_usd: number | null;
  prompts: number | null;
  turns: { completed: number; failed: number; interrupted: number } | null;
  tool_calls: number | null;
  tool_errors: number | null;
  compactions: number | null;
  subagents: number;
  status: string | null;
  status_reason: string | null;
}

const truth = JSON.parse(readFileSync(join(HOME, 'ground-truth.json'), 'utf8')) as { now: string; sessions: Truth[] };
const NOW = Date.parse(truth.now);
const OPTS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };
const TYPES = {
  input: 'input',
  output: 'output',
  cache_read: 'cacheRead',
  cache_write: 'cacheWrite',
  reasoning: 'reasoning',
} as const;

describe.each([
  // TRAE CLI is Codex: a subagent's rollout counts its tokens and tools for its parent thread.
  { reader: traeCli, root: join(HOME, '.trae/cli'), childrenInParent: true },
  // Grok: a subagent is a session of its own whose usage is counted in its parent's prompt.
  { reader: grok, root: join(HOME, '.grok'), childrenInParent: false },
  // OpenHands: a subagent is a conversation of its own whose metrics its parent holds a copy of.
  // Its event times are the writing machine's local time, and the sample's machine was in UTC.
  { reader: openhands, root: join(HOME, '.openhands/conversations'), childrenInParent: false, zone: 'UTC' },
  // Kiro: a subagent is a sibling bundle of its own; no tokens are recorded.
  { reader: kiro, root: join(HOME, '.kiro/sessions/cli'), childrenInParent: false },
  // Qoder is Claude Code: a subagent's transcript counts its tools for its parent session.
  { reader: qoder, root: join(HOME, '.qoder'), childrenInParent: true },
  // Zed: a subagent is a thread of its own (`parent_id`) with its own usage.
  { reader: zed, root: join(HOME, '.local/share/zed/threads'), childrenInParent: false },
  // Cursor's editor: a subagent is a chat of its own (`task-<call id>`); no tokens are recorded.
  { reader: cursor, root: join(HOME, '.config/Cursor'), childrenInParent: false },
  // Warp: a subagent is a conversation of its own. Its tool counters have none for the call that
  // started it (the truth's tool calls are their sum): the parent counts it on top, one a child.
  { reader: warp, root: join(HOME, '.local/state/warp-terminal'), childrenInParent: false, spawnsUncounted: true },
  // Copilot Chat in VS Code: a subagent's calls are its parent's (no session of its own).
  { reader: copilotVscode, root: join(HOME, '.config/Code/User'), childrenInParent: true },
  // Copilot CLI: every call's tokens from session-store.db, the rest from each session's events.jsonl.
  { reader: copilotCli, root: join(HOME, '.copilot'), childrenInParent: false },
])(
  '$reader.harness on the sample HOME of editor stores and CLIs',
  ({ reader, root, childrenInParent, zone, spawnsUncounted }) => {
    const all = truth.sessions.filter((s) => s.harness === reader.harness);
    const sessions = all.filter((s) => !(childrenInParent && s.parent_session_id));
    let read: Awaited<ReturnType<typeof readHome>>;
    beforeAll(async () => {
      const tz = process.env.TZ;
      if (zone) process.env.TZ = zone;
      try {
        read = await readHome(reader, root);
      } finally {
        if (tz === undefined) delete process.env.TZ;
        else process.env.TZ = tz;
      }
    });

    it('reads every file without skipping anything, and its default root is where the files are', () => {
      expect(sessions.length).toBeGreaterThan(0);
      expect(read.collector.stats.success).toBe(true);
      expect(read.collector.stats.skipped).toEqual(new Map());
      expect(reader.defaultRoots({}, HOME)).toContain(root);
      expect([...read.store.sessions.values()].map((s) => s.id).sort()).toEqual(
        sessions.map((s) => s.session_id).sort(),
      );
    });

    // A token type no session of the harness records has no series at all (never a series of 0).
    it('exports a series of a token type only where the harness records it', () => {
      const exported = new Set(
        [...read.store.counters.values()].flatMap((c) =>
          c.metric === 'reasoningTokens' ? ['reasoning'] : c.metric === 'tokens' ? [c.labels.token_type!] : [],
        ),
      );
      for (const type of Object.keys(TYPES) as (keyof Tokens)[]) {
        expect([type, exported.has(type)]).toEqual([type, all.some((s) => s.tokens[type] !== null)]);
      }
      // A harness that records no tokens has no cost either, nor a count of tokens left unpriced.
      const none = all.every((s) => Object.values(s.tokens).every((n) => n === null));
      const priced = [...read.store.counters.values()].filter(
        (c) => c.metric === 'cost' || c.metric === 'unpricedTokens',
      );
      expect(none ? priced.map((c) => `${c.metric}{model=${c.labels.model}}`) : []).toEqual([]);
    });

    it.each(sessions.map((s) => [s.session_id, s] as const))('session %s', (_, t) => {
      const s = read.store.sessions.get(`${reader.harness}/${t.session_id}`)!;
      const tally = read.store.bySession.get(`${reader.harness}/${t.session_id}`) ?? new Map<string, number>();
      const n = (k: string) => tally.get(k) ?? 0;
      const children = childrenInParent ? all.filter((c) => c.parent_session_id === t.session_id) : [];
      const own = t.tokens_included_in_parent ? [] : [t];
      const sum = (k: keyof Tokens) => [...own, ...children].reduce((a, c) => a + (c.tokens[k] ?? 0), 0);
      expect(s.project).toBe(t.project);
      expect(s.cwd).toBe(t.cwd);
      expect(s.model).toBe(t.model);
      // A type the truth leaves open (null) in a session of a harness that records it elsewhere is
      // not checked (Copilot CLI's output where reasoning may or may not be inside it).
      const unsure = (Object.keys(TYPES) as (keyof Tokens)[]).filter(
        (k) => t.tokens[k] === null && all.some((o) => o.tokens[k] !== null),
      );
      const checked = <T extends object>(o: T) =>
        Object.fromEntries(Object.entries(o).filter(([k]) => !unsure.some((type) => TYPES[type] === k)));
      expect(checked({ ...s.tokens, cacheWrite1h: 0 })).toEqual(
        checked({
          input: sum('input'),
          output: sum('output'),
          cacheRead: sum('cache_read'),
          cacheWrite: sum('cache_write'),
          reasoning: sum('reasoning'),
          cacheWrite1h: 0,
        }),
      );
      // Where the harness records no cost, the list price applies (the README says so of each).
      if (t.cost_usd !== null && own.length > 0)
        expect(s.costUsd).toBeCloseTo(
          [t, ...children].reduce((a, c) => a + (c.cost_usd ?? 0), 0),
          10,
        );
      expect(n('prompts')).toBe(t.prompts ?? 0);
      expect(n('toolCalls')).toBe(
        [t, ...children].reduce((a, c) => a + (c.tool_calls ?? 0), 0) + (spawnsUncounted ? t.subagents : 0),
      );
      expect(n('toolErrors')).toBe([t, ...children].reduce((a, c) => a + (c.tool_errors ?? 0), 0));
      expect(n('subagents')).toBe(t.subagents);
      expect(n('compactions')).toBe(t.compactions ?? 0);
      // Zed records no turn outcome (null): an answered prompt counts as completed.
      const answered = {
        completed: t.turns === null && t.status !== null ? t.prompts || 1 : 0,
        failed: 0,
        interrupted: 0,
      };
      expect({
        completed: n('turns:completed'),
        failed: n('turns:failed'),
        interrupted: n('turns:interrupted'),
      }).toEqual(t.turns ?? answered);
      const status = statusOf(s, undefined, NOW, OPTS, reader.facts);
      // Grok's plan approval (`plan_mode.json`) with no call open: the contract's reason for a
      // wait on the person with no open tool to say why.
      // Kiro's `.lock` is held while its turn is open: the open turn is what says it works.
      // Zed persists no live state (null): a prompt with no answer saved is a turn still open.
      const open = t.status_reason === 'lock' || t.status_reason === 'not-persisted';
      const expected =
        t.status_reason === 'plan-approval'
          ? { status: 'asking', reason: 'waiting' }
          : open
            ? { status: 'working', reason: 'turn-open' }
            : { status: t.status, reason: t.status_reason };
      expect({ status: status.status, reason: status.reason }).toEqual(expected);
    });
  },
);
