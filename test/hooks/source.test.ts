// The exporter reading the hook spool: what was appended since the last read, across the hook's
// rotation, a torn last line only once it is whole, and everything again after a restart.

import { appendFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookSource } from '../../src/hooks/source.js';
import type { HookState } from '../../src/session/types.js';
import { tempDir } from '../helpers/run.js';

const line = (session: string, phase: string, at: number) => `${JSON.stringify({ harness: 'codex', session, event: 'x', phase, at })}\n`;

describe('the hook spool source', () => {
  it('reads appended lines, follows a rotation, waits for a torn line, and starts over after a restart', () => {
    const dir = tempDir();
    const spool = join(dir, 'hooks.jsonl');
    const hooks = new Map<string, HookState>();
    const source = new HookSource(dir, hooks);
    expect(source.read()).toBe(false); // no spool yet: no hooks set up
    appendFileSync(spool, line('a', 'prompt', 1) + line('b', 'tool', 2));
    expect(source.read()).toBe(true);
    expect(source.read()).toBe(false);
    // Written after the last read, then moved aside by the hook; the new spool's first line.
    appendFileSync(spool, line('a', 'stop', 3));
    renameSync(spool, `${spool}.1`);
    appendFileSync(spool, `${line('b', 'permission', 4)}{"harness":"codex","sess`);
    expect(source.read()).toBe(true);
    expect(Object.fromEntries([...hooks].map(([k, v]) => [k, v.phase]))).toEqual({ 'codex/a': 'stop', 'codex/b': 'permission' });
    appendFileSync(spool, 'ion":"c","event":"x","phase":"end","at":5}\nnot json\n');
    expect(source.read()).toBe(true);
    expect(hooks.get('codex/c')).toEqual({ phase: 'end', at: 5 });
    const restarted = new Map<string, HookState>();
    new HookSource(dir, restarted).read();
    expect(restarted).toEqual(hooks);
  });
});
