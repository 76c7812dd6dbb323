import { describe, expect, it } from 'vitest';
import { harnessOf, isDemoStandIn, runsHook, sessionArgs } from '../../src/process/harnesses.js';

describe('harness processes', () => {
  it.each([
    [['/home/u/.local/share/claude/versions/2.1.332/claude.exe'], 'claude-code'],
    [['claude', '--model', 'x'], 'claude-code'],
    [['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js'], 'claude-code'],
    [['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'], 'codex'],
    [
      ['/home/u/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex', 'app-server', '--listen', 'unix://'],
      'codex',
    ],
    [
      ['/usr/bin/node', '--max-old-space-size=4096', '/usr/lib/node_modules/@google/gemini-cli/bin/gemini', '-m', 'x'],
      'gemini-cli',
    ],
    [['node', '--expose-gc', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js'], 'qwen-code'],
    [['/usr/lib/node_modules/@github/copilot-linux-x64/copilot'], 'copilot-cli'],
    [['/usr/bin/python3', '/home/u/.local/bin/aider', '--model', 'sonnet'], 'aider'],
    [['cursor-agent'], 'cursor-agent'],
    [['/opt/homebrew/bin/goose', 'session'], 'goose'],
    [['node', '/home/u/.npm-global/bin/gemini', '-m', 'x'], 'gemini-cli'],
    [['node', '/home/u/.npm-global/lib/node_modules/@google/gemini-cli/bundle/gemini.js'], 'gemini-cli'],
  ])('%j is %s', (argv, harness) => {
    expect(harnessOf(argv)).toBe(harness);
  });

  it('never takes a harness from arguments that may be prompt text', () => {
    expect(harnessOf(['node', '/usr/bin/other-tool', 'ask claude about codex'])).toBeUndefined();
    expect(harnessOf(['bash', '-c', 'claude -p hi'])).toBeUndefined();
    expect(harnessOf(['vim', 'codex'])).toBeUndefined();
  });

  it("takes a script for a harness only where it is the harness's entry point, not any script named like it", () => {
    expect(harnessOf(['node', '/home/u/src/tools/gemini.js'])).toBeUndefined();
    expect(harnessOf(['python3', 'scripts/aider.py', '--check'])).toBeUndefined();
    expect(harnessOf(['bun', '/tmp/claude.mjs'])).toBeUndefined();
  });

  it("tells a demo's stand-in agents (run from its sample home) from the user's, by the executable's path alone", () => {
    expect(
      isDemoStandIn([
        '/tmp/coding-agent-exporter-demo-4242-Ab12Cd/bin/claude',
        '-c',
        'while …',
        'claude',
        '--resume',
        'x',
      ]),
    ).toBe(true);
    expect(isDemoStandIn(['/tmp/coding-agent-exporter-demo-Ab12Cd/bin/aider'])).toBe(true); // a demo of an earlier version
    expect(isDemoStandIn(['/home/u/.local/bin/claude', '/tmp/coding-agent-exporter-demo-4242-Ab12Cd/bin/claude'])).toBe(
      false,
    );
    expect(isDemoStandIn(['/home/u/coding-agent-exporter-demo-notes/claude'])).toBe(false);
  });

  it('reads a session id after --resume, -r, --session, -s, resume, or --flag=id', () => {
    expect(sessionArgs(['claude', '--resume', 'a'])).toEqual(['a']);
    expect(sessionArgs(['claude', '-r', 'b', '-p', 'text'])).toEqual(['b']);
    expect(sessionArgs(['opencode', '--session=c'])).toEqual(['c']);
    expect(sessionArgs(['codex', 'resume', 'd'])).toEqual(['d']);
    expect(sessionArgs(['claude', '-p', 'resume'])).toEqual([]);
  });

  it("tells our hook, run directly or through sh -c, from the agent's tools", () => {
    expect(
      runsHook(['/bin/sh', '-c', 'coding-agent-exporter hook claude-code PreToolUse --state-dir /s'], 'claude-code'),
    ).toBe(true);
    expect(runsHook(['node', '/opt/cae/dist/main.js', 'hook', 'copilot-cli', 'preToolUse'], 'copilot-cli')).toBe(true);
    expect(runsHook(['/bin/bash', '-c', 'git hook list'], 'claude-code')).toBe(false);
    expect(runsHook(['coding-agent-exporter', 'hook', 'codex', 'notify'], 'claude-code')).toBe(false);
  });
});
