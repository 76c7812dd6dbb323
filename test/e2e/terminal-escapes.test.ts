// Escape codes written into a harness's files: a model name, a working folder (and the project
// named after it), an MCP tool's name. A terminal runs an escape code instead of showing it
// (OSC 52 writes the clipboard, OSC 0 the window title), so no command that draws a table may
// pass one through; JSON keeps them, escaped.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, run, tempDir } from '../helpers/run.js';

const OSC52 = '\x1b]52;c;cm0gLXJmIH4K\x07';
const TITLE = '\x1b]0;pwned\x9c';
const CSI = '\x1b[2J\x9b31m';
const BIDI = '\u202egnp.exe';
// ESC, BEL, C1 (0x80-0x9f, 0x9b being a one-byte CSI) and the bidi overrides and isolates.
// eslint-disable-next-line no-control-regex -- the control characters are what must not be there
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A home with one Claude Code session, active now, whose model, folder and running tool carry escapes. */
function hostileHome(): string {
  const home = tempDir();
  const cwd = `/home/dev/src/evil${TITLE}${BIDI}`;
  const dir = join(home, '.claude/projects/-home-dev-src-evil');
  mkdirSync(dir, { recursive: true });
  const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
  const common = { cwd, sessionId: 'hostile-1', version: '2.1.197', gitBranch: `main${CSI}` };
  const lines = [
    { ...common, type: 'user', timestamp: at(0), uuid: 'u1', message: { role: 'user', content: 'go' } },
    {
      ...common,
      type: 'assistant',
      timestamp: at(1),
      uuid: 'a1',
      message: {
        id: 'msg_1',
        model: `claude-sonnet-4-5${OSC52}${CSI}`,
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'toolu_1', name: `mcp__evil${OSC52}__run${BIDI}`, input: {} }],
        usage: { input_tokens: 10, output_tokens: 2 },
      },
    },
  ];
  writeFileSync(join(dir, 'hostile-1.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return home;
}

describe("escape codes in a harness's files", () => {
  const home = hostileHome();

  it.each([
    [['sessions']],
    [['report']],
    [['report', 'daily', '--breakdown', 'project']],
    [['report', 'session']],
    [['top']],
  ])('%j prints none of them', (args) => {
    const r = run([...args, '--state-dir', tempDir()], envFor(home));
    expect(r.status).toBe(0);
    // The session is there, each escape shown as U+FFFD (a daily report names the model alone).
    expect(r.stdout).toMatch(args.length === 1 && args[0] === 'report' ? /claude-sonnet-4-5\ufffd/ : /evil\ufffd/);
    expect(r.stdout + r.stderr).not.toMatch(UNSAFE);
  });

  it('top shows the running MCP tool, made printable', () => {
    const r = run(['top', '--state-dir', tempDir()], envFor(home));
    expect(r.stdout).toMatch(/mcp:evil\ufffd/);
  });

  // JSON.stringify escapes C0 alone: C1 and the bidi characters would reach the terminal.
  it.each([[['sessions', '--json']], [['report', '--json']], [['report', 'session', '--json']]])(
    '%j keeps them, escaped',
    (args) => {
      const r = run([...args, '--state-dir', tempDir()], envFor(home));
      expect(r.status).toBe(0);
      expect(r.stdout).not.toMatch(UNSAFE);
      expect(r.stdout).toContain('claude-sonnet-4-5\\u001b]52;c;cm0gLXJmIH4K\\u0007\\u001b[2J\\u009b31m');
    },
  );

  it('sessions --json is the same value, escaped', () => {
    const [s] = JSON.parse(run(['sessions', '--json', '--state-dir', tempDir()], envFor(home)).stdout) as {
      model: string;
      cwd: string;
    }[];
    expect(s!.model).toBe(`claude-sonnet-4-5${OSC52}${CSI}`);
    expect(s!.cwd).toBe(`/home/dev/src/evil${TITLE}${BIDI}`);
  });
});
