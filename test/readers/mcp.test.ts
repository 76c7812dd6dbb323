// MCP servers named as each harness names them, with the server names a harness is configured
// with where its tool names cannot say where a server's name ends.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyTool as claudeTool } from '../../src/readers/claude-code/tools.js';
import { geminiCli } from '../../src/readers/gemini-cli/reader.js';
import { configuredServers, serverOf, withoutComments } from '../../src/readers/mcp.js';
import { opencode } from '../../src/readers/opencode/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { recorder } from '../helpers/events.js';
import { OpenCodeDb } from '../helpers/opencode-db.js';
import { tempDir } from '../helpers/run.js';

const calls = (log: unknown[][]) =>
  log.filter(([e]) => e === 'toolCall').map(([, , c]) => (c as { tool: string }).tool);

describe('MCP server names', () => {
  it('Claude Code: mcp__<server>__<tool>', () => {
    expect(claudeTool('mcp__my_server__do_thing').tool).toBe('mcp:my_server');
  });

  it("reads only the names under the servers' key of a JSON or JSONC config", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'c.jsonc'),
      '{\n  // comment "x"\n  "mcp": { "my_server": { "command": ["x"], "environment": { "TOKEN": "secret" } }, /* b */ "b": {}, },\n}',
    );
    expect(configuredServers(join(dir, 'c.jsonc'), 'mcp')).toEqual(['my_server', 'b']);
    expect(configuredServers(join(dir, 'missing.json'), 'mcp')).toEqual([]);
    expect(withoutComments('{"a": "// not a comment", "b": "/* nor */"}')).toBe(
      '{"a": "// not a comment", "b": "/* nor */"}',
    );
  });

  it('splits where the configured name ends, else at the first separator', () => {
    expect(serverOf('my_server_do_thing', '_', ['my', 'my_server'])).toBe('my_server');
    expect(serverOf('other_do_thing', '_', ['my_server'])).toBe('other');
  });

  it("Gemini CLI: mcp_<server>_<tool> with the servers of the user's and the project's settings.json", () => {
    const root = tempDir();
    const project = tempDir();
    mkdirSync(join(project, '.gemini'));
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ mcpServers: { user_srv: { command: 'x' } } }));
    writeFileSync(
      join(project, '.gemini', 'settings.json'),
      JSON.stringify({ mcpServers: { my_server: { command: 'y' } } }),
    );
    const chats = join(root, 'tmp', 'app', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(root, 'tmp', 'app', '.project_root'), project);
    const file: SessionFile = { path: join(chats, 'session-2026-11-30T10-00-abcd1234.jsonl'), sessionId: 'abcd1234' };
    const r = recorder();
    const state = geminiCli.initialState(file);
    const call = (id: string, name: string) => ({ id, name, args: {}, status: 'success', result: [] });
    for (const rec of [
      { sessionId: 'abcd1234-0000', projectHash: 'h', startTime: '2026-11-30T10:00:00Z' },
      { id: 'u1', timestamp: '2026-11-30T10:00:01Z', type: 'user', content: [{ text: 'go' }] },
      {
        id: 'g1',
        timestamp: '2026-11-30T10:00:02Z',
        type: 'gemini',
        content: '',
        toolCalls: [call('c1', 'mcp_my_server_do_thing'), call('c2', 'mcp_user_srv_x'), call('c3', 'mcp_plain_tool')],
      },
    ])
      (geminiCli as { readLine: (l: Buffer, s: unknown, f: SessionFile, e: unknown) => void }).readLine(
        Buffer.from(JSON.stringify(rec)),
        state,
        file,
        r.events,
      );
    expect(calls(r.log)).toEqual(['mcp:my_server', 'mcp:user_srv', 'mcp:plain']);
  });

  it("OpenCode: <server>_<tool> with the servers of the global config and of the project's, up to its repository", () => {
    const home = tempDir();
    const data = join(home, '.local', 'share', 'opencode');
    mkdirSync(data, { recursive: true });
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'opencode', 'opencode.jsonc'),
      '{ "mcp": { "global_srv": {} } // names only\n}',
    );
    const repo = tempDir();
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'pkg'));
    writeFileSync(
      join(repo, 'opencode.json'),
      JSON.stringify({ mcp: { my_server: { type: 'local', command: ['x'] } } }),
    );
    const db = new OpenCodeDb({ path: join(data, 'opencode.db') });
    db.session('s1', 0, { directory: join(repo, 'pkg') });
    db.user('s1', 'u', 1);
    db.assistant('s1', 'a', 2);
    for (const [i, tool] of ['my_server_search', 'global_srv_list', 'other_thing', 'bash'].entries()) {
      db.part('s1', 'a', `p${i}`, 3, { type: 'tool', callID: `c${i}`, tool, state: { status: 'completed' } });
    }
    db.close();
    const r = recorder();
    const file: SessionFile = { path: join(data, 'opencode.db'), sessionId: 'opencode.db' };
    opencode.readStore(file, opencode.initialState(file), () => r.events);
    expect(calls(r.log)).toEqual(['mcp:my_server', 'mcp:global_srv', 'mcp:other', 'bash']);
  });
});
