// Hermes, Kodelet, goose and Crush stores as the harnesses hold them: open in WAL mode by a writer
// while they are read, read again after the exporter was killed, and damaged (a value that is no
// count, a column gone).

import { Database } from '../helpers/sqlite.js';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import type { HarnessId } from '../../src/session/types.js';
import { crush } from '../../src/readers/crush/reader.js';
import { goose } from '../../src/readers/goose/reader.js';
import { hermes } from '../../src/readers/hermes/reader.js';
import { kodelet } from '../../src/readers/kodelet/reader.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { crushHome, CRUSH_NOW } from '../helpers/crush-db.js';

const HOME = join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite');
const agents: Exporter[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
});

/** A copy of the fixture HOME (with Crush's projects written into it). */
function home(): string {
  const dir = tempDir('cae-home-');
  cpSync(HOME, dir, { recursive: true });
  crushHome(dir);
  return dir;
}

function agentFor(dir: string, state = tempDir(), log: string[] = []): Exporter {
  const config = loadConfig(['--state-dir', state], { HOME: dir });
  const agent = new Exporter(
    config,
    createLogger('warn', (l) => void log.push(l)),
    { env: { HOME: dir }, home: dir },
  );
  agents.push(agent);
  return agent;
}

/** A counter's value summed over its series of one harness. */
function total(agent: Exporter, harness: HarnessId, metric: string, labels: Record<string, string> = {}): number {
  return [...agent.store.counters.values()]
    .filter(
      (c) =>
        c.metric === metric &&
        c.labels.harness === harness &&
        Object.entries(labels).every(([k, v]) => c.labels[k] === v),
    )
    .reduce((a, c) => a + c.value, 0);
}

const DBS: Record<'hermes' | 'kodelet' | 'goose' | 'crush', string> = {
  hermes: '.hermes/state.db',
  kodelet: '.kodelet/storage.db',
  goose: '.local/share/goose/sessions/sessions.db',
  crush: 'src/web-ui/.crush/crush.db',
};
const hash = (p: string) => (existsSync(p) ? createHash('sha1').update(readFileSync(p)).digest('hex') : '-');

/** One more model call, written by the harness's own writer (its usage: 1000 output tokens). */
const CALL: Record<keyof typeof DBS, (db: Database) => void> = {
  hermes: (db) => {
    db.prepare(
      "UPDATE sessions SET output_tokens = output_tokens + 1000, estimated_cost_usd = estimated_cost_usd + 0.01, last_activity_at = 1796039999 WHERE id = '20261130_114800_8eb67b'",
    ).run();
    db.prepare(
      "INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES ('20261130_114800_8eb67b', 'user', 'again', 1796039990, NULL)",
    ).run();
  },
  kodelet: (db) => {
    const row = db
      .prepare("SELECT usage FROM conversations WHERE id = '20261130T113500-847f692edfb50af6'")
      .pluck()
      .get() as string;
    const u = JSON.parse(row) as { outputTokens: number; outputCost: number };
    u.outputTokens += 1000;
    u.outputCost += 0.01;
    db.prepare(
      "UPDATE conversations SET usage = ?, updated_at = '2026-11-30 11:59:59.000000001 +0000 UTC m=+99.1' WHERE id = '20261130T113500-847f692edfb50af6'",
    ).run(JSON.stringify(u));
  },
  goose: (db) => {
    db.prepare(
      "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction) VALUES ('20261130_1', 1796039990, 'gpt-4o', 10, 1000, 1010, 0, 0, 0.01, 'estimated', 0)",
    ).run();
    db.prepare("UPDATE sessions SET updated_at = '2026-11-30 11:59:50' WHERE id = '20261130_1'").run();
  },
  crush: (db) => {
    db.prepare("UPDATE sessions SET cost = cost + 0.01 WHERE id = 'c1'").run();
    db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(CRUSH_NOW - 1, 'c1');
  },
};
const GROWTH: Record<keyof typeof DBS, { metric: string; labels?: Record<string, string>; by: number }> = {
  hermes: { metric: 'tokens', labels: { token_type: 'output' }, by: 1000 },
  kodelet: { metric: 'tokens', labels: { token_type: 'output' }, by: 1000 },
  goose: { metric: 'tokens', labels: { token_type: 'output' }, by: 1000 },
  crush: { metric: 'cost', by: 0.01 },
};

describe.each(Object.keys(DBS) as (keyof typeof DBS)[])('%s store', (harness) => {
  it('is read, not written, while the harness has it open in WAL mode, and a new call counts once', async () => {
    const dir = home();
    const path = join(dir, DBS[harness]);
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // the new rows stay in the -wal
    try {
      const agent = agentFor(dir);
      await agent.scanAll();
      const g = GROWTH[harness];
      const before = total(agent, harness, g.metric, g.labels);
      expect(before).toBeGreaterThan(0);
      CALL[harness](writer);
      const bytes = [hash(path), hash(`${path}-wal`)];
      await agent.scanAll();
      await agent.scanAll();
      expect(total(agent, harness, g.metric, g.labels) - before).toBeCloseTo(g.by, 9);
      expect([hash(path), hash(`${path}-wal`)]).toEqual(bytes);
      expect(agent.collectors.get(harness)!.stats.success).toBe(true);
    } finally {
      writer.close();
    }
  });

  it('counts nothing twice after the exporter was killed and started again', async () => {
    const dir = home();
    const state = tempDir();
    const first = agentFor(dir, state);
    await first.scanAll(); // each scan commits: a kill after it loses nothing
    const counters = [...first.store.counters.values()]
      .filter((c) => c.labels.harness === harness)
      .map((c) => [c.key, c.value]);
    const again = agentFor(dir, state);
    await again.scanAll();
    expect(
      [...again.store.counters.values()].filter((c) => c.labels.harness === harness).map((c) => [c.key, c.value]),
    ).toEqual(counters);
    // The harness goes on: only the new call counts.
    const writer = new Database(join(dir, DBS[harness]));
    CALL[harness](writer);
    writer.close();
    const g = GROWTH[harness];
    const before = total(again, harness, g.metric, g.labels);
    await again.scanAll();
    expect(total(again, harness, g.metric, g.labels) - before).toBeCloseTo(g.by, 9);
  });
});

describe('stores', () => {
  it("are found in every Hermes profile and under HERMES_HOME, Kodelet's, goose's and Crush's own variables", () => {
    expect(hermes.defaultRoots({}, '/home/u')).toEqual(['/home/u/.hermes']);
    expect(hermes.defaultRoots({ HERMES_HOME: '/srv/hermes' }, '/home/u')).toEqual(['/srv/hermes', '/home/u/.hermes']);
    expect(hermes.listFiles(join(HOME, '.hermes')).map((f) => [f.sessionId, f.path.slice(HOME.length)])).toEqual([
      ['default', '/.hermes/state.db'],
      ['work', '/.hermes/profiles/work/state.db'],
    ]);
    expect(kodelet.defaultRoots({ KODELET_BASE_PATH: '/k' }, '/home/u')).toEqual(['/k']);
    expect(goose.defaultRoots({ GOOSE_PATH_ROOT: '/g' }, '/home/u')).toEqual(['/g/data']);
    expect(goose.defaultRoots({ XDG_DATA_HOME: '/x' }, '/home/u')).toEqual(['/x/goose']);
    expect(crush.defaultRoots({ CRUSH_GLOBAL_DATA: '/c' }, '/home/u')).toEqual(['/c']);
    // projects.json lists a project whose folder is gone: only the databases that exist are listed.
    const dir = crushHome();
    expect(
      crush
        .listFiles(join(dir, '.local/share/crush'))
        .map((f) => f.path.slice(dir.length))
        .sort(),
    ).toEqual(['/src/data-pipe/.crush/crush.db', '/src/web-ui/.crush/crush.db']);
  });

  it('locked by a writer fail the scan after the busy timeout, and the next scan counts everything once', async () => {
    const dir = home();
    const path = join(dir, DBS.hermes);
    const writer = new Database(path);
    writer.pragma('journal_mode = DELETE'); // a rollback journal: an exclusive lock keeps readers out
    writer.exec('BEGIN EXCLUSIVE');
    const agent = agentFor(dir);
    await agent.scanAll();
    expect(agent.collectors.get('hermes')!.stats.success).toBe(false);
    expect(agent.collectors.get('goose')!.stats.success).toBe(true);
    writer.exec('COMMIT');
    writer.close();
    await agent.scanAll();
    expect(agent.collectors.get('hermes')!.stats.success).toBe(true);
    expect(agent.store.sessions.get('hermes/20261130_113600_07105b')!.tokens.input).toBe(5028);
  });

  it('(Hermes) end a turn still open as interrupted when the next prompt comes, once, also across a restart', async () => {
    const dir = home();
    const state = tempDir();
    const prompt = (ts: number) => {
      const db = new Database(join(dir, DBS.hermes));
      db.prepare(
        "INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES ('20261130_114800_8eb67b', 'user', 'go', ?, NULL)",
      ).run(ts);
      db.close();
    };
    const interrupted = (a: Exporter) => total(a, 'hermes', 'turns', { outcome: 'interrupted' });
    const first = agentFor(dir, state);
    await first.scanAll();
    prompt(1796039990);
    await first.scanAll();
    expect(interrupted(first)).toBe(0);
    const again = agentFor(dir, state);
    await again.scanAll();
    prompt(1796039995);
    await again.scanAll();
    await again.scanAll();
    expect(interrupted(again)).toBe(1);
    expect(again.store.sessions.get('hermes/20261130_114800_8eb67b')!.turnStartedAt).toBe(1796039995_000);
  });
});

describe('damaged stores', () => {
  it('skip and count a row whose token value is not a count, keeping the others', async () => {
    const dir = home();
    const db = new Database(join(dir, DBS.hermes));
    db.prepare("UPDATE sessions SET input_tokens = 'lots' WHERE id = '20261130_114800_8eb67b'").run();
    db.prepare("UPDATE sessions SET output_tokens = -5 WHERE id = '20261130_114800_0ab3a3'").run();
    db.close();
    const agent = agentFor(dir);
    await agent.scanAll();
    await agent.scanAll(); // read again (changed within the last seconds): counted once
    const stats = agent.collectors.get('hermes')!.stats;
    expect(stats.success).toBe(true);
    expect(stats.skipped.get('implausible_value')).toBe(2);
    // Everything else of the store counts: the compression chain's input, for one.
    expect(agent.store.sessions.get('hermes/20261130_113600_07105b')!.tokens.input).toBe(5028);
    expect(agent.store.sessions.get('hermes/20261130_114800_8eb67b')!.tokens.input).toBe(0);
  });

  it('with a row dated past any date still read the changes after it: the cursor does not move there', async () => {
    const dir = home();
    const agent = agentFor(dir);
    await agent.scanAll();
    const before = [
      total(agent, 'hermes', 'tokens', { token_type: 'output' }),
      total(agent, 'crush', 'cost'),
      total(agent, 'kodelet', 'tokens', { token_type: 'output' }),
      total(agent, 'goose', 'tokens', { token_type: 'output' }),
    ];
    const damage = {
      hermes: "UPDATE sessions SET last_activity_at = 1e308 WHERE id = '20261130_113600_07105b'",
      crush: "UPDATE sessions SET updated_at = 1e308 WHERE id = 'c2'",
      // Text timestamps: a date far in the future.
      kodelet:
        "UPDATE conversations SET updated_at = '9999-12-31 00:00:00.000000001 +0000 UTC m=+1.0' WHERE id = '20261130T114900-8e8e07d4427c194a'",
      goose: "UPDATE sessions SET updated_at = '9999-12-31 00:00:00' WHERE id = '20261130_2'",
    };
    for (const [h, sql] of Object.entries(damage)) {
      const db = new Database(join(dir, DBS[h as keyof typeof DBS]));
      db.prepare(sql).run();
      db.close();
    }
    await agent.scanAll();
    // Then a session's totals grow, with no new message (Hermes's background writer does so).
    const hermesDb = new Database(join(dir, DBS.hermes));
    hermesDb
      .prepare(
        "UPDATE sessions SET output_tokens = output_tokens + 1000, last_activity_at = 1796039999 WHERE id = '20261130_114800_8eb67b'",
      )
      .run();
    hermesDb.close();
    for (const h of ['crush', 'kodelet', 'goose'] as const) {
      const db = new Database(join(dir, DBS[h]));
      CALL[h](db);
      // Kodelet finds changes by their time alone: this one is written now, as Kodelet would.
      const goNow = `${new Date().toISOString().replace('T', ' ').slice(0, 19)}.000000001 +0000 UTC m=+1.0`;
      if (h === 'kodelet')
        db.prepare("UPDATE conversations SET updated_at = ? WHERE id = '20261130T113500-847f692edfb50af6'").run(goNow);
      db.close();
    }
    await agent.scanAll();
    expect(total(agent, 'hermes', 'tokens', { token_type: 'output' }) - before[0]!).toBe(1000);
    expect(total(agent, 'crush', 'cost') - before[1]!).toBeCloseTo(0.01, 9);
    expect(total(agent, 'kodelet', 'tokens', { token_type: 'output' }) - before[2]!).toBe(1000);
    expect(total(agent, 'goose', 'tokens', { token_type: 'output' }) - before[3]!).toBe(1000);
  });

  it('count a damaged row as skipped once, however often it is read again while its database changes', async () => {
    const dir = home();
    const db = new Database(join(dir, DBS.hermes));
    db.prepare("UPDATE sessions SET started_at = 'yesterday' WHERE id = '20261130_113600_07105b'").run();
    db.close();
    const agent = agentFor(dir);
    await agent.scanAll();
    for (let i = 0; i < 2; i++) {
      const writer = new Database(join(dir, DBS.hermes));
      CALL.hermes(writer);
      writer.close();
      await agent.scanAll();
    }
    expect(agent.collectors.get('hermes')!.stats.skipped.get('unknown_shape')).toBe(1);
  });

  it('with a column missing fail only their own collector, with a warning naming the column', async () => {
    const dir = home();
    const db = new Database(join(dir, DBS.goose));
    db.exec('ALTER TABLE sessions DROP COLUMN accumulated_input_tokens');
    db.close();
    const log: string[] = [];
    const agent = agentFor(dir, tempDir(), log);
    await agent.scanAll();
    expect(agent.collectors.get('goose')!.stats.success).toBe(false);
    for (const other of ['hermes', 'kodelet', 'crush']) expect(agent.collectors.get(other)!.stats.success).toBe(true);
    const warnings = log
      .map((l) => JSON.parse(l) as { level: string; collector?: string; error?: string })
      .filter((l) => l.collector === 'goose');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe('warn');
    expect(warnings[0]!.error).toMatch(/accumulated_input_tokens/);
  });
});
