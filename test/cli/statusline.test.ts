// `statusline`: the line Claude Code's status bar shows, what it records for the exporter (never
// a prompt or a path), a line whatever it is given, and an import graph kept small (it runs after
// every message).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FALLBACK, statusLine } from '../../src/cli/statusline.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { ZERO_USAGE } from '../../src/session/types.js';
import { StateDb } from '../../src/state/db.js';
import { readRecordedStatus, statusFile } from '../../src/state/statusline.js';
import { SessionStore } from '../../src/store/store.js';
import { importGraph, packagesOf, reachable } from '../architecture/imports.js';
import { sinkOf } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const NOW = Date.UTC(2026, 11, 1, 12, 30);
const sec = (ms: number) => ms / 1000;

/** What Claude Code passes a subscription user's statusLine command (2.1.x). */
const subscription = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 's-1',
    transcript_path: '/home/me/.claude/projects/p/s-1.jsonl',
    cwd: '/home/me/secret-project',
    model: { id: 'claude-opus-4-6', display_name: 'Opus 4.6' },
    workspace: { current_dir: '/home/me/secret-project' },
    version: '2.1.332',
    cost: { total_cost_usd: 0.4213, total_lines_added: 3 },
    context_window: { context_window_size: 200000, used_percentage: 42, total_input_tokens: 84000 },
    rate_limits: {
      five_hour: { used_percentage: 35, resets_at: sec(NOW + 2.5 * 3_600_000) },
      seven_day: { used_percentage: 91.5, resets_at: new Date(NOW + (3 * 24 + 4) * 3_600_000).toISOString() },
      seven_day_sonnet: { used_percentage: 10, resets_at: sec(NOW - 60_000) },
    },
    prompt: 'do not leak this prompt',
    ...over,
  });

describe('statusline', () => {
  it('prints the model, context, spend and the windows with the time to their reset, and records the windows and the context use', () => {
    const dir = tempDir();
    const line = statusLine(subscription(), { stateDir: dir, color: false, now: NOW });
    expect(line).toBe('Opus 4.6 │ ctx 42% │ $0.42 session, - today │ 5h 35% ↻2h30m │ 7d 92% ↻3d4h');
    expect(readRecordedStatus(dir)).toEqual({
      at: NOW,
      limits: [
        { window: '5h', usedRatio: 0.35, resetsAt: sec(NOW + 2.5 * 3_600_000) },
        { window: '7d', usedRatio: 0.915, resetsAt: sec(NOW + (3 * 24 + 4) * 3_600_000) },
        { window: '7d_sonnet', usedRatio: 0.1, resetsAt: sec(NOW - 60_000) },
      ],
      sessions: { 's-1': { usedRatio: 0.42, size: 200000, at: NOW } },
    });
    const recorded = readFileSync(statusFile(dir), 'utf8');
    for (const text of ['leak', 'secret-project', 'transcript', '.jsonl']) expect(recorded).not.toContain(text);
  });

  it('colours the shares unless told not to, and takes a template; a window past its reset shows 0 %', () => {
    const dir = tempDir();
    expect(statusLine(subscription(), { stateDir: dir, color: true, now: NOW })).toContain(
      '5h \x1b[32m35%\x1b[0m ↻2h30m │ 7d \x1b[31m92%\x1b[0m',
    );
    expect(
      statusLine(subscription(), {
        stateDir: dir,
        color: false,
        now: NOW,
        format: '{7d_sonnet} {7d_sonnet_resets} {7d_opus} {5h_resets} {nope}',
      }),
    ).toBe('0% - - 2h30m {nope}');
  });

  it("without the windows (an API key) shows the 5-hour block and today's spend from the state database, keeping the windows recorded before", () => {
    const dir = tempDir();
    statusLine(subscription(), { stateDir: dir, color: false, now: NOW });
    const store = new SessionStore(new StateDb(dir), createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const ev = sinkOf(
      store,
      'claude-code',
      () => 's-2',
      'claude-code',
      () => {},
    );
    ev.meta({ cwd: '/work/p' });
    const now = Date.now();
    const hour = Math.floor(now / 3_600_000) * 3_600_000;
    ev.usage('unpriced', { ...ZERO_USAGE, input: 1000 }, 0, hour, 1.5);
    ev.usage('unpriced', { ...ZERO_USAGE, input: 1000 }, 0, hour + 60_000, 0.25);
    store.commit();
    const line = statusLine(subscription({ rate_limits: null, session_id: 's-2' }), {
      stateDir: dir,
      color: false,
      now: hour + 120_000,
    });
    expect(line).toBe('Opus 4.6 │ ctx 42% │ $0.42 session, $1.75 today │ block $1.75 ↻4h58m');
    expect(readRecordedStatus(dir)!.limits.map((l) => l.window)).toEqual(['5h', '7d', '7d_sonnet']);
    expect(Object.keys(readRecordedStatus(dir)!.sessions)).toEqual(['s-2', 's-1']);
  });

  it('prints a line for anything on stdin, and one when nothing can be recorded', () => {
    const dir = tempDir();
    for (const stdin of ['', 'not json', '[1]', 'null'])
      expect(statusLine(stdin, { stateDir: dir, color: false })).toBe(`${FALLBACK} (no JSON on stdin)`);
    expect(statusLine('{}', { stateDir: dir, color: false, now: NOW })).toBe(
      '? │ ctx - │ - session, - today │ block - ↻-',
    );
    const notADir = statusFile(dir); // a file where the state folder should be
    expect(statusLine(subscription(), { stateDir: notADir, color: false, now: NOW })).toMatch(
      /^Opus 4\.6 │ .* \(not recorded: .+\)$/,
    );
  });

  it("loads no reader but Claude Code's statusline, no collector, no OpenTelemetry, no watcher, no server", () => {
    // Static imports only (a dynamic import() runs only on its command's path), type-only ones left out (erased).
    expect(readFileSync(join(SRC, 'cli/run.ts'), 'utf8')).toContain("import('./statusline.js')");
    const modules = [...reachable(importGraph(SRC, { dynamic: false }), ['main.ts', 'cli/statusline.ts'])].sort();
    const packages = new Set(modules.flatMap((m) => packagesOf(SRC, m)));
    // Of the views, only the number formats (which import nothing): the line's time to a reset is `top`'s.
    expect(
      modules.filter((m) =>
        /^(agent|collectors\/|metrics\/|process\/|view\/(?!format\.ts$)|cli\/(help|top|demo))/.test(m),
      ),
    ).toEqual([]);
    expect(modules.filter((m) => m.startsWith('readers/'))).toEqual([
      'readers/claude-code/statusline.ts',
      'readers/fields.ts',
    ]);
    // Of the outside packages, at most the state database's.
    expect([...packages].filter((p) => !p.startsWith('node:') && p !== 'better-sqlite3')).toEqual([]);
  });
});
