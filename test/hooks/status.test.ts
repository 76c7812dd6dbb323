// Each harness's hook events as they fired live in each state (test/fixtures/hooks/<harness>.jsonl),
// through the spool record and the per-session merge, to the status and reason they give with the
// process table's word beside them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setHook } from '../../src/hooks/source.js';
import { claudeCode } from '../../src/readers/claude-code/where.js';
import { codex } from '../../src/readers/codex/where.js';
import { copilotCli } from '../../src/readers/copilot-cli/where.js';
import { geminiCli } from '../../src/readers/gemini-cli/where.js';
import { qwenCode } from '../../src/readers/qwen-code/where.js';
import { HOOK_HARNESSES, hookRecord, type HookHarness } from '../../src/hooks/spool.js';
import { statusOf, type Liveness } from '../../src/session/status.js';
import { PendingCalls, type HookState, type ProcessState, type Session } from '../../src/session/types.js';
import { hookMap } from '../helpers/hooks.js';
import { FIXTURES } from '../helpers/run.js';

const now = Date.UTC(2026, 11, 1, 12);
const opts = { doneForMs: 30 * 60_000, staleAfterMs: 2 * 3600_000 };
// What the files leave: Gemini CLI writes a tool call once it finished, so its turn looks ended.
const filesOf = (harness: HookHarness): Session => ({
  harness,
  id: 'S1',
  startedAt: now - 3600_000,
  lastActivityAt: now - 20_000,
  pendingTools: new PendingCalls(),
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
  costUsd: 0,
  ...(harness === 'gemini-cli'
    ? { lastTurn: { outcome: 'completed' as const, endedAt: now - 20_000 } }
    : { turnStartedAt: now - 30_000 }),
});
// What each harness's reader declares of its files (the store hands it to statusOf).
const FACTS = Object.fromEntries(
  [claudeCode, codex, copilotCli, geminiCli, qwenCode].map((w) => [w.harness, w.facts ?? {}]),
);
const alive = (p: Partial<ProcessState> = {}): Liveness => ({ visible: true, proc: { attribution: 'hook', ...p } });
const killed: Liveness = { visible: true };

/**
 * [event named on the command line, payload]; each a second after the one before, the last 10 s
 * ago. The payloads have the fields the CLIs sent (test/fixtures/hooks, checked below): Claude
 * Code, Codex, Gemini CLI and Qwen Code name the event and the session in snake case; Copilot CLI
 * names its session `sessionId`, and its event only in a notification (`hook_event_name`) or a
 * permission request (`hookName`): its command line names it.
 */
type Ev = [string, Record<string, unknown>];
const ev = (name: string, extra: Record<string, unknown> = {}): Ev => [
  name,
  { hook_event_name: name, session_id: 'S1', transcript_path: '/t.jsonl', cwd: '/w', ...extra },
];
const copilot = (name: string, extra: Record<string, unknown> = {}): Ev => [
  name,
  {
    sessionId: 'S1',
    timestamp: now,
    cwd: '/w',
    ...(name === 'notification'
      ? { hook_event_name: 'Notification' }
      : name === 'permissionRequest'
        ? { hookName: name }
        : {}),
    ...extra,
  },
];

function replay(harness: HookHarness, events: Ev[]): HookState | undefined {
  const target = hookMap();
  events.forEach(([name, payload], i) => {
    const r = hookRecord(harness, payload, now - 10_000 - (events.length - 1 - i) * 1000, name, 4242);
    if (r) setHook(target, `${harness}/S1`, r);
  });
  return target.hooks.get(`${harness}/S1`);
}

const bash = { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } };
type Case = [string, HookHarness, Ev[], Liveness, string, string];
const cases: Case[] = [
  // Claude Code: PreToolUse → PermissionRequest at once, the notification 6 s later.
  [
    'approval',
    'claude-code',
    [
      ev('UserPromptSubmit', { prompt: 'p' }),
      ev('PreToolUse', bash),
      ev('PermissionRequest', bash),
      ev('Notification', { notification_type: 'permission_prompt' }),
    ],
    alive({ toolRunning: false }),
    'asking',
    'approval',
  ],
  [
    'question',
    'claude-code',
    [
      ev('PreToolUse', { tool_name: 'AskUserQuestion' }),
      ev('PermissionRequest', { tool_name: 'AskUserQuestion' }),
      ev('Notification', { notification_type: 'permission_prompt' }),
    ],
    alive(),
    'asking',
    'question',
  ],
  [
    'tool running after approval',
    'claude-code',
    [ev('PreToolUse', bash), ev('PermissionRequest', bash)],
    alive({ toolRunning: true }),
    'working',
    'process-busy',
  ],
  // Seen live: Claude Code's registry says busy once approved (no tool marker is read for it).
  [
    'tool running after approval, by the registry',
    'claude-code',
    [ev('PreToolUse', bash), ev('PermissionRequest', bash)],
    alive({ status: 'busy' }),
    'working',
    'process-busy',
  ],
  [
    'answer',
    'claude-code',
    [
      ev('PreToolUse', { tool_name: 'AskUserQuestion' }),
      ev('PermissionRequest', { tool_name: 'AskUserQuestion' }),
      ev('PostToolUse', { tool_name: 'AskUserQuestion' }),
    ],
    alive(),
    'working',
    'turn-open',
  ],
  ['killed', 'claude-code', [ev('PreToolUse', bash), ev('PermissionRequest', bash)], killed, 'done', 'recent'],
  [
    'turn finished',
    'claude-code',
    [
      ev('PostToolUse', bash),
      ev('PostToolBatch'),
      ev('Stop'),
      ev('Notification', { notification_type: 'idle_prompt' }),
    ],
    alive(),
    'done',
    'recent',
  ],
  ['quit', 'claude-code', [ev('Stop'), ev('SessionEnd')], alive(), 'idle', 'quiet'],
  // Gemini CLI: what its files show as a finished turn.
  [
    'approval',
    'gemini-cli',
    [
      ev('BeforeAgent'),
      ev('BeforeTool', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'ToolPermission', details: { type: 'exec' } }),
    ],
    alive(),
    'asking',
    'approval',
  ],
  [
    'question',
    'gemini-cli',
    [
      ev('BeforeTool', { tool_name: 'ask_user' }),
      ev('Notification', { notification_type: 'ToolPermission', details: { type: 'ask_user' } }),
    ],
    alive(),
    'asking',
    'question',
  ],
  [
    'tool running after approval',
    'gemini-cli',
    [
      ev('BeforeTool', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'ToolPermission', details: { type: 'exec' } }),
    ],
    alive({ toolRunning: true }),
    'working',
    'process-busy',
  ],
  [
    'answer',
    'gemini-cli',
    [
      ev('BeforeTool', { tool_name: 'ask_user' }),
      ev('Notification', { notification_type: 'ToolPermission', details: { type: 'ask_user' } }),
      ev('AfterTool', { tool_name: 'ask_user' }),
    ],
    alive(),
    'working',
    'turn-open',
  ],
  [
    'killed',
    'gemini-cli',
    [
      ev('BeforeTool', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'ToolPermission', details: { type: 'exec' } }),
    ],
    killed,
    'done',
    'recent',
  ],
  [
    'turn finished',
    'gemini-cli',
    [ev('AfterTool', { tool_name: 'run_shell_command' }), ev('PreCompress'), ev('AfterAgent')],
    alive(),
    'done',
    'recent',
  ],
  // Qwen Code: asks before PreToolUse, which fires once approved.
  [
    'approval',
    'qwen-code',
    [
      ev('PermissionRequest', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'permission_prompt' }),
    ],
    alive(),
    'asking',
    'approval',
  ],
  [
    'question',
    'qwen-code',
    [
      ev('PermissionRequest', { tool_name: 'ask_user_question' }),
      ev('Notification', { notification_type: 'permission_prompt' }),
    ],
    alive(),
    'asking',
    'question',
  ],
  [
    'tool running after approval',
    'qwen-code',
    [
      ev('PermissionRequest', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'permission_prompt' }),
      ev('PreToolUse', { tool_name: 'run_shell_command' }),
    ],
    alive(),
    'working',
    'turn-open',
  ],
  [
    'answer',
    'qwen-code',
    [ev('PermissionRequest', { tool_name: 'ask_user_question' }), ev('PreToolUse', { tool_name: 'ask_user_question' })],
    alive(),
    'working',
    'turn-open',
  ],
  ['killed', 'qwen-code', [ev('PermissionRequest', { tool_name: 'run_shell_command' })], killed, 'done', 'recent'],
  [
    'turn finished',
    'qwen-code',
    [
      ev('PostToolUse'),
      ev('PostToolBatch'),
      ev('UserPromptSubmit', { prompt: '' }),
      ev('Stop'),
      ev('Notification', { notification_type: 'idle_prompt' }),
    ],
    alive(),
    'done',
    'recent',
  ],
  // Copilot CLI: camelCase events, named on the command line.
  [
    'approval',
    'copilot-cli',
    [
      copilot('preToolUse', { toolName: 'bash' }),
      copilot('permissionRequest', { toolName: 'bash' }),
      copilot('notification', { notification_type: 'permission_prompt' }),
    ],
    alive(),
    'asking',
    'approval',
  ],
  [
    'question',
    'copilot-cli',
    [
      copilot('preToolUse', { toolName: 'ask_user' }),
      copilot('notification', { notification_type: 'elicitation_dialog' }),
    ],
    alive(),
    'asking',
    'question',
  ],
  [
    'tool running after approval',
    'copilot-cli',
    [copilot('preToolUse', { toolName: 'bash' }), copilot('permissionRequest', { toolName: 'bash' })],
    alive({ toolRunning: true }),
    'working',
    'process-busy',
  ],
  [
    'answer',
    'copilot-cli',
    [
      copilot('preToolUse', { toolName: 'ask_user' }),
      copilot('notification', { notification_type: 'elicitation_dialog' }),
      copilot('postToolUse', { toolName: 'ask_user' }),
    ],
    alive(),
    'working',
    'turn-open',
  ],
  [
    'killed',
    'copilot-cli',
    [copilot('preToolUse', { toolName: 'bash' }), copilot('permissionRequest', { toolName: 'bash' })],
    killed,
    'done',
    'recent',
  ],
  [
    'turn finished',
    'copilot-cli',
    [copilot('postToolUse', { toolName: 'bash' }), copilot('agentStop')],
    alive(),
    'done',
    'recent',
  ],
  // Codex: a question is only a PreToolUse; the turn's end also comes by notify.
  [
    'approval',
    'codex',
    [ev('PreToolUse', bash), ev('PermissionRequest', bash)],
    alive({ toolRunning: false }),
    'asking',
    'approval',
  ],
  ['question', 'codex', [ev('PreToolUse', { tool_name: 'request_user_input' })], alive(), 'asking', 'question'],
  [
    'tool running after approval',
    'codex',
    [ev('PreToolUse', bash), ev('PermissionRequest', bash)],
    alive({ toolRunning: true }),
    'working',
    'process-busy',
  ],
  [
    'answer',
    'codex',
    [ev('PreToolUse', { tool_name: 'request_user_input' }), ev('PostToolUse', { tool_name: 'request_user_input' })],
    alive(),
    'working',
    'turn-open',
  ],
  ['killed', 'codex', [ev('PreToolUse', bash), ev('PermissionRequest', bash)], killed, 'done', 'recent'],
  [
    'turn finished',
    'codex',
    [ev('PostToolUse', bash), ev('Stop'), ['notify', { type: 'agent-turn-complete', 'thread-id': 'S1' }]],
    alive(),
    'done',
    'recent',
  ],
];

describe("hooks: each harness's recorded sequence gives the status and the reason", () => {
  it.each(cases)('%s (%s)', (_state, harness, events, live, status, reason) => {
    const hook = replay(harness, events);
    expect(hook).toBeDefined();
    expect(statusOf(filesOf(harness), { ...live, hook }, now, opts, FACTS[harness])).toEqual({ status, reason });
  });

  it('reads no field name that no CLI sent', () => {
    const invented = {
      hookEventName: 'Notification',
      notificationType: 'permission_prompt',
      thread_id: 'S1',
      transcriptPath: '/t.jsonl',
      cwd: '/w',
    };
    expect(hookRecord('copilot-cli', { sessionId: 'S1', ...invented }, now, 'notification')).toBeUndefined();
    expect(hookRecord('codex', { type: 'agent-turn-complete', ...invented }, now, 'notify')).toBeUndefined();
    expect(hookRecord('copilot-cli', { sessionId: 'S1', ...invented }, now, 'preToolUse')).not.toHaveProperty(
      'transcript',
    );
  });

  it("sends only the fields the CLIs sent: each payload's names are among those its CLI sent with that event (with any event, where that one was not recorded)", () => {
    for (const [, harness, events] of cases) {
      const sent = recorded(harness);
      const all = new Set(sent.flatMap((r) => Object.keys(r.payload)));
      for (const [name, payload] of events) {
        const same = sent.filter((r) => r.event === name);
        const names = same.length > 0 ? new Set(same.flatMap((r) => Object.keys(r.payload))) : all;
        expect(
          Object.keys(payload).filter((k) => !names.has(k)),
          `${harness} ${name}`,
        ).toEqual([]);
      }
    }
  });

  it("Copilot CLI approved: its events record the permission's answer after the event, which ends the wait its hook still shows (seen live)", () => {
    const hook = replay('copilot-cli', [
      copilot('preToolUse', { toolName: 'bash' }),
      copilot('permissionRequest', { toolName: 'bash' }),
      copilot('notification', { notification_type: 'permission_prompt' }),
    ])!;
    const bashCall = { tool: 'bash', kind: 'execute' as const };
    const waiting = {
      ...filesOf('copilot-cli'),
      lastActivityAt: hook.at + 100,
      pendingTools: PendingCalls.of({ c1: { ...bashCall, waits: 'approval' as const } }),
    };
    const approved = {
      ...filesOf('copilot-cli'),
      lastActivityAt: hook.at + 3000,
      pendingTools: PendingCalls.of({ c1: bashCall }),
    };
    expect(statusOf(waiting, { ...alive(), hook }, now, opts, copilotCli.facts)).toEqual({
      status: 'asking',
      reason: 'approval',
    });
    expect(statusOf(approved, { ...alive(), hook }, now, opts, copilotCli.facts)).toEqual({
      status: 'working',
      reason: 'turn-open',
    });
  });

  it('Copilot CLI: where its events file is late or silent, the hook says asking, and its question is a question', () => {
    const bashCall = { tool: 'bash', kind: 'execute' as const };
    // The call's start written, not yet its permission request: the file says nothing after the event.
    const late = { ...filesOf('copilot-cli'), pendingTools: PendingCalls.of({ c1: bashCall }) };
    const approval = replay('copilot-cli', [
      copilot('preToolUse', { toolName: 'bash' }),
      copilot('permissionRequest', { toolName: 'bash' }),
      copilot('notification', { notification_type: 'permission_prompt' }),
    ]);
    expect(statusOf(late, { ...alive(), hook: approval }, now, opts, copilotCli.facts)).toEqual({
      status: 'asking',
      reason: 'approval',
    });
    const question = replay('copilot-cli', [
      copilot('preToolUse', { toolName: 'ask_user' }),
      copilot('notification', { notification_type: 'elicitation_dialog' }),
    ]);
    expect(question).toMatchObject({ waits: 'question', tool: 'ask_user' });
    expect(question?.phase).not.toBe('permission');
    expect(statusOf(filesOf('copilot-cli'), { ...alive(), hook: question }, now, opts, copilotCli.facts)).toEqual({
      status: 'asking',
      reason: 'question',
    });
  });

  it('Gemini CLI waiting for approval: without the hook, its files say done', () => {
    expect(statusOf(filesOf('gemini-cli'), alive(), now, opts)).toEqual({ status: 'done', reason: 'recent' });
  });

  it("keeps neither the prompt nor the tool's input", () => {
    const r = hookRecord(
      'claude-code',
      { hook_event_name: 'UserPromptSubmit', session_id: 'S1', prompt: 'my secret plan' },
      now,
    );
    const t = hookRecord('claude-code', { hook_event_name: 'PreToolUse', session_id: 'S1', ...bash }, now);
    expect(JSON.stringify([r, t])).not.toMatch(/secret|rm -rf/);
    expect(t).toMatchObject({ phase: 'tool', tool: 'Bash' });
  });

  it('a hook event a minute behind the files is not the last word (a hook removed since)', () => {
    const hook = replay('gemini-cli', [
      ev('BeforeTool', { tool_name: 'run_shell_command' }),
      ev('Notification', { notification_type: 'ToolPermission' }),
    ])!;
    const later = {
      ...filesOf('gemini-cli'),
      lastActivityAt: hook.at + 120_000,
      lastTurn: { outcome: 'completed' as const, endedAt: hook.at + 120_000 },
    };
    expect(statusOf(later, { ...alive(), hook }, hook.at + 130_000, opts)).toEqual({
      status: 'done',
      reason: 'recent',
    });
  });

  it('a turn interrupted after the last event (Claude Code fires no Stop then) is over when its files say so', () => {
    const hook = replay('claude-code', [ev('UserPromptSubmit'), ev('PreToolUse', bash)])!;
    const interrupted = {
      ...filesOf('claude-code'),
      turnStartedAt: undefined,
      lastActivityAt: hook.at + 2000,
      lastTurn: { outcome: 'interrupted' as const, endedAt: hook.at + 2000 },
    };
    expect(statusOf(interrupted, { ...alive(), hook }, hook.at + 5000, opts)).toEqual({
      status: 'done',
      reason: 'recent',
    });
    expect(
      statusOf(
        { ...filesOf('claude-code'), lastActivityAt: hook.at + 2000 },
        { ...alive(), hook },
        hook.at + 5000,
        opts,
      ),
    ).toEqual({ status: 'working', reason: 'turn-open' });
  });

  it("Claude Code: a permission refused with Esc (no hook fires) is over once the transcript records the turn's end or the registry says idle after the event", () => {
    const hook = replay('claude-code', [
      ev('UserPromptSubmit'),
      ev('PreToolUse', bash),
      ev('PermissionRequest', bash),
      ev('Notification', { notification_type: 'permission_prompt' }),
    ])!;
    const refused = {
      ...filesOf('claude-code'),
      turnStartedAt: undefined,
      pendingTools: new PendingCalls(),
      lastActivityAt: hook.at + 3000,
      lastTurn: { outcome: 'interrupted' as const, endedAt: hook.at + 3000 },
    };
    const waiting = {
      ...filesOf('claude-code'),
      pendingTools: PendingCalls.of({ t1: { tool: 'Bash', kind: 'execute' as const } }),
    };
    const at = hook.at + 5000;
    // Both the files and the registry say so.
    expect(statusOf(refused, { ...alive({ status: 'idle', statusAt: hook.at + 3000 }), hook }, at, opts)).toEqual({
      status: 'done',
      reason: 'process-idle',
    });
    // The files alone (no registry joined).
    expect(statusOf(refused, { ...alive(), hook }, at, opts)).toEqual({ status: 'done', reason: 'recent' });
    // The registry alone (the transcript not read yet).
    expect(statusOf(waiting, { ...alive({ status: 'idle', statusAt: hook.at + 3000 }), hook }, at, opts)).toEqual({
      status: 'done',
      reason: 'process-idle',
    });
    // A registry status set before the event is not the later word: the hook's wait stands.
    expect(statusOf(waiting, { ...alive({ status: 'idle', statusAt: hook.at - 3000 }), hook }, at, opts)).toEqual({
      status: 'asking',
      reason: 'approval',
    });
  });

  it('an event older than the one kept changes nothing; one that says nothing a status needs is not written', () => {
    const target = hookMap();
    expect(setHook(target, 'codex/S1', hookRecord('codex', ev('Stop')[1], now)!)).toBe(true);
    expect(setHook(target, 'codex/S1', hookRecord('codex', ev('PreToolUse', bash)[1], now - 5000)!)).toBe(false);
    expect(target.hooks.get('codex/S1')?.phase).toBe('stop');
    expect(hookRecord('gemini-cli', ev('PreCompress')[1], now)).toBeUndefined();
    expect(hookRecord('claude-code', { hook_event_name: 'Stop' }, now)).toBeUndefined();
  });
});

// The payloads the five CLIs sent live (shared/lab/fake-models/live.sh, hooks from `hooks print`),
// each state's in the order they came, their prompt and tool input cut out: the field names are
// the CLIs' own, not inferred. The kill's events are those of the running tool before it.
interface Recorded {
  state: 'approval' | 'question' | 'killed';
  event: string;
  payload: Record<string, unknown>;
}
const recorded = (harness: HookHarness): Recorded[] =>
  readFileSync(join(FIXTURES, 'hooks', `${harness}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Recorded);

describe.each(HOOK_HARNESSES)('hooks as %s sent them live', (harness) => {
  const events = recorded(harness);
  /** The session's last hook state after the state's events (others' events, Codex's title thread, aside). */
  const after = (state: Recorded['state']): HookState | undefined => {
    const evs = events.filter((e) => e.state === state);
    const session = hookRecord(harness, evs[0]!.payload, now, evs[0]!.event)?.session;
    return replay(
      harness,
      evs
        .filter((e) => hookRecord(harness, e.payload, now, e.event)?.session === session)
        .map((e) => [e.event, e.payload]),
    );
  };

  it('every payload names its session; what a status needs is read from it', () => {
    for (const e of events) {
      const r = hookRecord(harness, e.payload, now, e.event);
      const p = e.payload;
      expect(r, e.event).toMatchObject({
        session: expect.any(String),
        ...(p.cwd ? { cwd: p.cwd } : {}),
        ...(p.transcript_path ? { transcript: p.transcript_path } : {}),
      });
      const tool = p.tool_name ?? p.toolName;
      if (tool && r?.phase !== 'stop') expect(r?.tool, e.event).toBe(tool);
    }
  });

  it.each([
    ['approval', alive({ toolRunning: false }), 'asking', 'approval'],
    ['question', alive({ toolRunning: false }), 'asking', 'question'],
    ['killed', alive({ toolRunning: true }), 'working', expect.any(String)],
    ['killed', killed, expect.not.stringMatching(/^(working|asking)$/), expect.any(String)],
  ] as const)('%s', (state, live, status, reason) => {
    expect(statusOf(filesOf(harness), { ...live, hook: after(state) }, now, opts, FACTS[harness])).toEqual({
      status,
      reason,
    });
  });
});
