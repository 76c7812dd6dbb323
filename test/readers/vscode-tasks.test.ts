import { cpSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { rooCode } from '../../src/readers/roo-code/reader.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const TASK = '5b70f775-a2cc-457f-9876-ac743c8eef90';
const req = (ts: number, counts: object) => ({ ts, type: 'say', say: 'api_req_started', text: JSON.stringify({ apiProtocol: 'anthropic', ...counts }) });

describe('VS Code extension tasks (Roo Code)', () => {
  it('counts a request once as the transcript is rewritten, from its placeholder to its counts, and skips a transcript too large or broken', async () => {
    const root = tempDir();
    cpSync(join(FIXTURES, 'wave3-home/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks'), root, { recursive: true });
    const path = join(root, TASK, 'ui_messages.json');
    const db = new StateDb(':memory:');
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('roo-code', rooCode, [root], store, db, createLogger('error'));
    const tokens = (type: string) => [...store.counters.values()].filter((c) => c.metric === 'tokens' && c.labels.token_type === type).reduce((n, c) => n + c.value, 0);
    await collector.scan();
    const before = tokens('input');
    const first = { ts: 1, type: 'say', say: 'text', text: 'x' };
    // In flight: a placeholder counts nothing.
    writeFileSync(path, JSON.stringify([first, req(2, {})]));
    await collector.scan();
    expect(tokens('input')).toBe(before);
    // The stream ended: tokensIn holds the cache (Roo ≥ 3.29.5), counted once however often it is rewritten.
    const done = [first, req(2, { tokensIn: 1000, tokensOut: 10, cacheReads: 600, cacheWrites: 100, cost: 0.01 })];
    writeFileSync(path, JSON.stringify(done));
    await collector.scan();
    writeFileSync(path, JSON.stringify([...done, { ts: 3, type: 'ask', ask: 'completion_result', text: 'ok' }]));
    await collector.scan();
    expect(tokens('input') - before).toBe(300);
    expect(tokens('cache_read')).toBeGreaterThanOrEqual(600);
    writeFileSync(path, '[{"ts":');
    await collector.scan();
    expect(collector.stats.skipped.get('parse_error')).toBe(1);
    // A 200 MB transcript (sparse: nothing is written) is never read into memory.
    truncateSync(path, 200 << 20);
    await collector.scan();
    expect(collector.stats.skipped.get('file_too_large')).toBe(1);
    expect(collector.stats.success).toBe(true);
  });

  it('finds the tasks in every editor user dir on Linux and macOS, and VS Code server', () => {
    const roots = rooCode.defaultRoots({ XDG_CONFIG_HOME: '/x' }, '/h');
    for (const dir of ['/x/Code', '/x/Code - Insiders', '/x/VSCodium', '/x/Cursor', '/x/Windsurf', '/h/Library/Application Support/Code', '/h/.vscode-server/data']) {
      expect(roots).toContain(`${dir}/User/globalStorage/rooveterinaryinc.roo-cline/tasks`);
    }
  });
});
