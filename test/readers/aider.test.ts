import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aider, type AiderState } from '../../src/readers/aider/reader.js';
import { searchFiles, sessionIdOf } from '../../src/readers/aider/where.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { countedTurns, recorder, storeTurns, type Recorded } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const file: SessionFile = {
  path: '/src/app/.aider.chat.history.md',
  sessionId: sessionIdOf('/src/app/.aider.chat.history.md'),
};

/** Reads a history's text line by line; every event with the session it was reported for. */
function read(text: string) {
  const r = recorder();
  const state: AiderState = aider.initialState(file);
  const sessions: string[] = [];
  const events = new Proxy(r.events, {
    get:
      (target, name: string) =>
      (...args: unknown[]) => {
        sessions.push(aider.sessionOf!(file, state));
        return (target[name as keyof typeof target] as (...a: unknown[]) => unknown)(...args);
      },
  });
  for (const l of text.split('\n')) if (l !== '') aider.readLine(Buffer.from(l), state, file, events);
  return { log: r.log, sessions, state };
}
const of = (log: Recorded[], name: string) => log.filter(([e]) => e === name);

const header = (time: string, model = 'anthropic/claude-sonnet-4-5-20250929') => `
# aider chat started at ${time}

> Aider v0.86.2  
> Main model: ${model} with diff edit format, prompt cache, infinite output  
> Weak model: anthropic/claude-haiku-4-5  
`;

describe('aider reader', () => {
  it('reads the usage report in both forms: Cost on the same line, or on the next without "> "', () => {
    const { log, sessions } = read(`${header('2026-11-30 10:00:00')}
#### Fix it  

Done.

> Tokens: 2.3k sent, 12k received. Cost: $0.02 message, $0.02 session.  

#### And this  

> Tokens: 5.2k sent, 176 cache write, 3.3k cache hit, 799 received.
Cost: $0.01 message, $0.03 session.  
`);
    const usage = of(log, 'usage');
    expect(usage.map(([, model, u, tier, , cost]) => [model, u, tier, cost])).toEqual([
      [
        'anthropic/claude-sonnet-4-5-20250929',
        { input: 2300, output: 12000, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
        2300,
        0.02,
      ],
      // "sent" includes the cache hit and the cache write
      [
        'anthropic/claude-sonnet-4-5-20250929',
        { input: 1724, output: 799, cacheRead: 3300, cacheWrite: 176, cacheWrite1h: 0, reasoning: 0 },
        5200,
        0.01,
      ],
    ]);
    expect(countedTurns(log, sessions)).toEqual(['completed', 'completed']);
  });

  it('counts the session cost Aider printed, each answer once: the growth of its session total', () => {
    const { log } = read(`${header('2026-11-30 10:00:00')}
#### a  
> Tokens: 1k sent, 10 received. Cost: $0.0049 message, $0.0049 session.  
#### b  
> Tokens: 1k sent, 10 received. Cost: $0.0051 message, $0.01 session.  
#### c  
> Tokens: 1k sent, 10 received. Cost: $0.02 message, $0.03 session.  
${header('2026-11-30 11:00:00')}
#### d  
> Tokens: 1k sent, 10 received. Cost: $0.0066 message, $0.0066 session.  
`);
    const costs = of(log, 'usage').map(([, , , , , c]) => c as number);
    expect(costs[0]! + costs[1]! + costs[2]!).toBeCloseTo(0.03, 12);
    // the session total restarts with each session
    expect(costs[3]).toBeCloseTo(0.0066, 12);
  });

  it('gives no cost where Aider printed none (a model without prices): the list price applies', () => {
    const { log } = read(`${header('2026-11-30 10:00:00')}
#### a  
> Tokens: 605 sent, 679 received.  
> Applied edit to x  
`);
    expect(of(log, 'usage').map(([, , u, , , c]) => [(u as { input: number }).input, c])).toEqual([[605, undefined]]);
  });

  it('counts a multi-line prompt once, and commands not at all (but the message /ask sends)', () => {
    const { log, sessions } = read(`${header('2026-11-30 10:00:00')}
#### first line  
#### second line  

> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.01 session.  

#### /add src/app.py  
> Added src/app.py to the chat  

#### /ask why?  

#### why?  

> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.02 session.  
`);
    expect(of(log, 'prompt')).toHaveLength(2);
    expect(countedTurns(log, sessions)).toEqual(['completed', 'completed']);
  });

  it('tells the further lines of a command (multi-line mode) from the prompt Aider writes for its text', () => {
    const { log, sessions } = read(`${header('2026-11-30 10:00:00')}
#### /drop a.py  

#### /drop b.py  

#### /code  
#### Please write a script  
#### that runs the tests  

#### Please write a script  
#### that runs the tests  

> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.01 session.  

#### Now, and  
####   
#### with an empty line  
> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.02 session.  
`);
    expect(of(log, 'prompt')).toHaveLength(2);
    expect(countedTurns(log, sessions)).toEqual(['completed', 'completed']);
  });

  it('fails a turn on an error notice, and reopens it when a retry is answered', () => {
    const failed = read(`${header('2026-11-30 10:00:00')}
#### go  
> litellm.APIConnectionError: AnthropicException - Connection reset by peer  
> Retrying in 0.2 seconds...  
`);
    expect(countedTurns(failed.log, failed.sessions)).toEqual(['failed']);
    const retried = read(`${header('2026-11-30 10:00:00')}
#### go  
> litellm.RateLimitError: rate limited  
> Retrying in 0.2 seconds...  
> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.01 session.  
`);
    // The failure stays counted; the turn it ended went on and completed.
    expect(storeTurns(retried.log, retried.sessions)).toMatchObject({
      counted: [{ outcome: 'failed' }],
      last: { outcome: 'completed' },
      open: false,
    });
  });

  it('ends an unanswered turn as interrupted at the next prompt or session', () => {
    const { log, sessions } = read(`${header('2026-11-30 10:00:00')}
#### one  
#### 
${header('2026-11-30 11:00:00')}
#### two  
`);
    // "#### " alone continues the prompt (an empty line of it)
    expect(countedTurns(log, sessions)).toEqual(['interrupted']);
  });

  it("names each session after a short hash of the file's path (no path in an id) and its header time; its records take that (local) time", () => {
    const { log, sessions } = read(`${header('2026-11-30 10:00:00')}
#### a  
${header('2026-11-30 11:30:00', 'openrouter/qwen/qwen3-coder')}
#### b  
`);
    const p = log.map(([e], i) => [e, sessions[i]]).filter(([e]) => e === 'prompt');
    const fileId = createHash('sha256').update('/src/app/.aider.chat.history.md').digest('hex').slice(0, 12);
    expect(p).toEqual([
      ['prompt', `${fileId}#2026-11-30T10:00:00`],
      ['prompt', `${fileId}#2026-11-30T11:30:00`],
    ]);
    // without an input history beside it, a prompt takes its session's start
    expect(of(log, 'prompt').map(([, t]) => t)).toEqual([
      Date.parse('2026-11-30T10:00:00'),
      Date.parse('2026-11-30T11:30:00'),
    ]);
    expect(of(log, 'meta')).toContainEqual(['meta', { cwd: '/src/app' }]);
    expect(of(log, 'meta')).toContainEqual(['meta', { model: 'openrouter/qwen/qwen3-coder' }]);
    // nothing is reported for the file before its first header (no session of its own)
    expect(sessions).not.toContain(file.sessionId);
  });

  it('gives each prompt, and the records after it, the time the input history says it was typed', () => {
    const dir = tempDir();
    const history = {
      path: join(dir, '.aider.chat.history.md'),
      sessionId: sessionIdOf(join(dir, '.aider.chat.history.md')),
    };
    writeFileSync(
      join(dir, '.aider.input.history'),
      [
        '# 2026-11-29 09:00:00.100000',
        '+fix it', // an earlier session's
        '# 2026-11-30 10:00:05.250000',
        '+fix it',
        '# 2026-11-30 10:20:00.000000',
        '+/ask why?',
        '# 2026-11-30 10:21:00.000000',
        '+N',
        '# 2026-11-30 11:00:00.000000',
        '+',
        '+a second line',
      ]
        .map((l) => `${l}\n`)
        .join(''),
    );
    const r = recorder();
    const state = aider.initialState(history);
    const text = `${header('2026-11-30 10:00:00')}
#### fix it  
> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.01 session.  
#### /ask why?  
#### why?  
> Tokens: 1k sent, 10 received. Cost: $0.01 message, $0.02 session.  
####   
#### a second line  
> litellm.APIError: boom  
`;
    for (const l of text.split('\n')) if (l) aider.readLine(Buffer.from(l), state, history, r.events);
    const at = (s: string) => Date.parse(s);
    expect(of(r.log, 'prompt').map(([, t]) => t)).toEqual([
      at('2026-11-30T10:00:05.250'),
      at('2026-11-30T10:20:00'),
      at('2026-11-30T11:00:00'),
    ]);
    expect(storeTurns(r.log).counted.map((t) => [t.outcome, t.endedAt])).toEqual([
      ['completed', at('2026-11-30T10:00:05.250')],
      ['completed', at('2026-11-30T10:20:00')],
      ['failed', at('2026-11-30T11:00:00')],
    ]);
  });

  it('skips (and counts) what is outside any session, and never throws on binary', () => {
    const { log } = read('#### a prompt before any header\n> Tokens: 1k sent, 1 received.\n\u0000\u00ff{');
    expect(of(log, 'skipped')).toHaveLength(3);
    expect(log.every(([e]) => e === 'skipped')).toBe(true);
  });

  it('finds history files down to 4 folder levels below a root, not in node_modules, .git or hidden folders', () => {
    const root = tempDir();
    const put = (...p: string[]) => {
      mkdirSync(join(root, ...p), { recursive: true });
      writeFileSync(join(root, ...p, '.aider.chat.history.md'), '');
    };
    put('repo');
    put('src', 'org', 'team', 'repo');
    put('src', 'org', 'team', 'group', 'too-deep');
    put('node_modules', 'pkg');
    put('.git', 'x');
    put('.hidden', 'repo');
    writeFileSync(join(root, '.aider.chat.history.md'), '');
    const found = aider
      .listFiles(root)
      .map((f) => f.path.slice(root.length))
      .sort();
    expect(found).toEqual([
      '/.aider.chat.history.md',
      '/repo/.aider.chat.history.md',
      '/src/org/team/repo/.aider.chat.history.md',
    ]);
    // What an Aider working in a folder writes is found at any depth: its folder's, and those above it up to the root.
    const near = (cwd: string[], r = root) =>
      aider.filesNear!(join(root, ...cwd), r).map((f) => f.path.slice(root.length));
    expect(near(['src', 'org', 'team', 'group', 'too-deep', 'lib'])).toEqual([
      '/src/org/team/group/too-deep/.aider.chat.history.md',
      '/.aider.chat.history.md',
    ]);
    expect(near(['src', 'org'])).toEqual(['/.aider.chat.history.md']);
    expect(near(['repo'], join(root, 'src'))).toEqual([]);
  });

  it('lists no more folders and entries a search than its budget, the shallowest first', () => {
    const root = tempDir();
    for (const d of ['a', 'b', 'c']) mkdirSync(join(root, d, 'deeper', 'still'), { recursive: true });
    writeFileSync(join(root, 'a', '.aider.chat.history.md'), '');
    writeFileSync(join(root, 'c', 'deeper', '.aider.chat.history.md'), '');
    const search = (budget: { folders: number; entries: number }) => {
      const steps = searchFiles(root, budget);
      let listed = 0;
      for (let step = steps.next(); ; step = steps.next(), listed++)
        if (step.done === true) return { listed, found: step.value.map((f) => f.path.slice(root.length)) };
    };
    expect(search({ folders: 100, entries: 100 })).toEqual({
      listed: 10,
      found: ['/a/.aider.chat.history.md', '/c/deeper/.aider.chat.history.md'],
    });
    expect(search({ folders: 4, entries: 100 })).toEqual({ listed: 4, found: ['/a/.aider.chat.history.md'] });
    // The root's 3 entries and a's 2 spend a budget of 5 entries.
    expect(search({ folders: 100, entries: 5 })).toEqual({ listed: 2, found: ['/a/.aider.chat.history.md'] });
  });

  it('gives the sessions an earlier release named by their path their id of now, and no other id another', () => {
    const fileId = sessionIdOf('/home/u/src/app#1/.aider.chat.history.md');
    expect(aider.renamedSession!('/home/u/src/app#1/.aider.chat.history.md#2026-11-30 10:00:00')).toBe(
      `${fileId}#2026-11-30T10:00:00`,
    );
    expect(aider.renamedSession!('/home/u/src/app#1/.aider.chat.history.md')).toBe(fileId);
    expect(aider.renamedSession!(`${fileId}#2026-11-30T10:00:00`)).toBeUndefined();
  });

  it('lists each real folder once in a maze of links (two folders of links to each other), by its own path first', () => {
    const root = tempDir();
    const K = 6;
    for (const d of ['a', 'b']) {
      mkdirSync(join(root, d));
      writeFileSync(join(root, d, '.aider.chat.history.md'), '');
    }
    for (let i = 0; i < K; i++) {
      symlinkSync(join(root, 'b'), join(root, 'a', `to-b-${i}`));
      symlinkSync(join(root, 'a'), join(root, 'b', `to-a-${i}`));
    }
    // A link to a folder found nowhere else is followed, once.
    mkdirSync(join(root, 'elsewhere', 'repo'), { recursive: true });
    writeFileSync(join(root, 'elsewhere', 'repo', '.aider.chat.history.md'), '');
    symlinkSync(join(root, 'elsewhere', 'repo'), join(root, 'a', 'linked'));
    // Followed link by link, this maze has K^4 paths 4 levels down: every history file was found again under each.
    expect(
      aider
        .listFiles(root)
        .map((f) => f.path.slice(root.length))
        .sort(),
    ).toEqual(['/a/.aider.chat.history.md', '/b/.aider.chat.history.md', '/elsewhere/repo/.aider.chat.history.md']);
    // The search yields once per folder listed: the root, a, b, elsewhere and its repo (reached first by its own path).
    const search = aider.searchFiles!(root);
    let listed = 0;
    while (search.next().done !== true) listed++;
    expect(listed).toBe(5);
  });
});
