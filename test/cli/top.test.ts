// `top --url` reading an exporter's JSON: what an older exporter serves is still drawn.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteSource } from '../../src/cli/top.js';
import { renderScreen } from '../../src/view/screen.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close().closeAllConnections();
});

describe('top --url', () => {
  it('draws the summary of an exporter older than the usage limits and the spend history', async () => {
    // /api/v1/summary as it was before it carried `limits` and `spend_30d`.
    const older = {
      generated_at: new Date().toISOString(),
      spend_today_usd: 1.5,
      spend_week_usd: 4,
      tokens_total: 10,
      sessions_by_status: { asking: 0, working: 0, delegating: 0, done: 0, error: 0, idle: 0 },
      spend_today: [],
    };
    const server = createServer((req, res) => res.end(JSON.stringify(req.url === '/api/v1/summary' ? older : [])));
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { summary, sessions } = await remoteSource(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ).read();
    expect([summary.limits, summary.spend_30d]).toEqual([[], []]);
    const lines = renderScreen(summary, sessions, {
      width: 80,
      height: 12,
      color: false,
      now: Date.now(),
      sort: 'status',
      filter: '',
      showIdle: true,
      source: 'x',
    });
    expect(lines[1]).toContain('spend today $1.50  this week $4.00');
  });
});
