import { Database } from '../helpers/sqlite.js';
import { cpSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openclaw, type OpenClawState } from '../../src/readers/openclaw/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { zstdFrame } from '../helpers/zstd.js';

const DB = '.openclaw/agents/main/agent/openclaw-agent.sqlite';

/** A copy of a capture's home (the database is written to by the tests). */
function home(capture: string): string {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'captures/openclaw', capture, '.openclaw'), join(dir, '.openclaw'), { recursive: true });
  return dir;
}

function read(root: string, seen = new Set<string>(), states = new Map<string, OpenClawState>()) {
  const r = recorder(seen);
  for (const f of openclaw.listFiles(root)) {
    // Persisted between reads, as the collector keeps it.
    const state = JSON.parse(JSON.stringify(states.get(f.path) ?? openclaw.initialState(f))) as OpenClawState;
    openclaw.readStore(f, state, () => r.events);
    states.set(f.path, state);
  }
  return r;
}

const usages = (log: unknown[][]) => eventsNamed(log, 'usage').map(([, model, u, , , cost]) => [model, u, cost]);

describe('OpenClaw reader', () => {
  it('decodes an event stored zstd-compressed exactly as the same event stored as JSON', () => {
    const plain = home('tool');
    const packed = home('tool');
    const db = new Database(join(packed, DB));
    const bytes = readFileSync(join(FIXTURES, 'openclaw/answer.json.zst'));
    db.prepare(
      'UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = length(event_json), navigation_json = ? WHERE seq = 8',
    ).run(
      bytes,
      JSON.stringify({
        version: 1,
        report: { kind: 'canonical' },
        navigation: {},
        reset: {},
        model: {},
        modelBytes: 0,
        modelWithoutCheckpointBytes: 0,
        withoutCustomDataBytes: 0,
      }),
    );
    expect(db.prepare('SELECT count(*) AS n FROM transcript_events WHERE event_zstd IS NOT NULL').get()).toEqual({
      n: 1,
    });
    db.close();
    const expected = read(join(plain, '.openclaw')).log;
    const got = read(join(packed, '.openclaw')).log;
    expect(eventsNamed(got, 'skipped')).toEqual([]);
    expect(usages(got)).toEqual(usages(expected));
    expect(usages(got)).toHaveLength(2);
    expect(countedTurns(got)).toEqual(['completed']);
  });

  it('skips a compressed event that is not zstd, with a reason', () => {
    const dir = home('text');
    const db = new Database(join(dir, DB));
    db.pragma('ignore_check_constraints = ON');
    db.prepare('UPDATE transcript_events SET event_json = NULL, event_zstd = ? WHERE seq = 5').run(
      Buffer.from('not zstd'),
    );
    db.close();
    const { log } = read(join(dir, '.openclaw'));
    expect(eventsNamed(log, 'skipped')).toEqual([['skipped', 'parse_error']]);
    expect(usages(log)).toEqual([]);
  });

  it('skips a compressed event that decompresses past 16 MB (a zstd bomb: 32 kB for 1 GB), with a reason, and reads on', () => {
    const dir = home('text');
    const db = new Database(join(dir, DB));
    db.pragma('ignore_check_constraints = ON');
    // The session's answer, padded with a gigabyte of text OpenClaw's own limits would refuse.
    const { event_json: answer } = db.prepare('SELECT event_json FROM transcript_events WHERE seq = 5').get() as {
      event_json: string;
    };
    const bomb = zstdFrame([
      Buffer.from(`${answer.slice(0, -1)},"pad":"`),
      { byte: 0x61, times: 1 << 30 },
      Buffer.from('"}'),
    ]);
    expect(bomb.length).toBeLessThan(40_000);
    db.prepare('UPDATE transcript_events SET event_json = NULL, event_zstd = ? WHERE seq = 5').run(bomb);
    db.close();
    const states = new Map<string, OpenClawState>();
    const { log } = read(join(dir, '.openclaw'), new Set(), states);
    expect(eventsNamed(log, 'skipped')).toEqual([['skipped', 'line_too_long']]);
    expect(usages(log)).toEqual([]);
    expect(eventsNamed(log, 'prompt')).toHaveLength(1);
    // Read past: the next read does not meet it again.
    expect(Object.values(states.get(join(dir, DB))!.seqs)).toEqual([5]);
  });

  it('reads only the events a session appended since its last read, and counts each once', () => {
    const dir = home('text');
    const root = join(dir, '.openclaw');
    const seen = new Set<string>();
    const states = new Map<string, OpenClawState>();
    const first = read(root, seen, states);
    expect(usages(first.log)).toHaveLength(1);
    // The session goes on: a second prompt and answer appended (by seq), as `--session-id` again does.
    const db = new Database(join(dir, DB));
    const rows = db.prepare('SELECT seq, event_json FROM transcript_events WHERE seq IN (4, 5) ORDER BY seq').all() as {
      seq: number;
      event_json: string;
    }[];
    const insert = db.prepare(
      'INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)',
    );
    for (const r of rows) {
      const e = JSON.parse(r.event_json) as { id: string; timestamp: string };
      insert.run(
        'cap-demo-app',
        r.seq + 2,
        JSON.stringify({ ...e, id: `${e.id}-2`, timestamp: '2026-12-01T19:20:00.000Z' }),
        1796152800000,
      );
    }
    db.close();
    const second = read(root, seen, states);
    expect(usages(second.log)).toHaveLength(1);
    expect(eventsNamed(second.log, 'prompt')).toHaveLength(1);
    expect(Object.values(states.get(join(root, 'agents/main/agent/openclaw-agent.sqlite'))!.seqs)).toEqual([7]);
  });

  it('counts a session once when OpenClaw keeps a copy of it on a reset', () => {
    const dir = tempDir();
    const sessions = join(dir, 'agents/main/sessions');
    cpSync(join(FIXTURES, 'homes/vscode-extensions-and-clis/.openclaw/agents/main/sessions'), sessions, {
      recursive: true,
    });
    const id = '25d86a4d-5a30-4e8d-8a3e-35b9b3225557';
    const seen = new Set<string>();
    const before = read(dir, seen);
    renameSync(join(sessions, `${id}.jsonl`), join(sessions, `${id}.jsonl.reset.2026-11-30T12-00-00.000Z`));
    const files = openclaw.listFiles(dir).filter((f: SessionFile) => f.sessionId === id);
    expect(files.map((f) => f.path)).toEqual([join(sessions, `${id}.jsonl.reset.2026-11-30T12-00-00.000Z`)]);
    const after = read(dir, seen);
    expect(usages(before.log).length).toBeGreaterThan(0);
    expect(usages(after.log)).toEqual([]);
    expect(eventsNamed(after.log, 'prompt')).toEqual([]);
  });

  it("never lists the credentials beside an agent's database", () => {
    const dir = home('text');
    cpSync(join(dir, DB), join(dir, '.openclaw/agents/main/agent/auth-profiles.json'));
    expect(openclaw.listFiles(join(dir, '.openclaw')).map((f) => f.path)).toEqual([join(dir, DB)]);
  });

  it('reads the state folder OPENCLAW_STATE_DIR names', () => {
    expect(openclaw.defaultRoots({ OPENCLAW_STATE_DIR: '/srv/claw' }, '/home/u')).toEqual([
      '/srv/claw',
      '/home/u/.openclaw',
    ]);
    expect(openclaw.defaultRoots({}, '/home/u')).toEqual(['/home/u/.openclaw']);
  });

  it('recognises the openclaw, auggie and junie processes', () => {
    expect(harnessOf(['openclaw', 'agent', '--local'])).toBe('openclaw');
    expect(harnessOf(['node', '/usr/lib/node_modules/openclaw/openclaw.mjs', 'gateway'])).toBe('openclaw');
    expect(harnessOf(['auggie'])).toBe('auggie');
    expect(harnessOf(['node', '/usr/lib/node_modules/@augmentcode/auggie/augment.mjs'])).toBe('auggie');
    expect(harnessOf(['junie'])).toBe('junie');
  });
});
