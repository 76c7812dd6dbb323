// The log's lines: JSON a terminal shows as written.

import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';

describe('the log', () => {
  it("writes a path from a harness's files with its C1 and bidi characters escaped", () => {
    const lines: string[] = [];
    createLogger('info', (l) => lines.push(l)).warn('skipped', {
      path: '/home/u/.claude/x\x9d0;title\x9c\u202e.jsonl',
    });
    // eslint-disable-next-line no-control-regex -- the characters a terminal acts on
    expect(lines[0]).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(lines[0]!).path).toBe('/home/u/.claude/x\x9d0;title\x9c\u202e.jsonl');
  });
});
