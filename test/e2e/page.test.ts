// The live page in a real browser: headless Chromium (Debian's package) loads `/` from `serve`
// on the demo's sample home, and the table follows a record appended after it loaded.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/demo.js';
import { timeLeft, usd } from '../../src/view/format.js';
import type { Summary } from '../../src/view/summary.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { envFor, listening, ready, sum, tempDir } from '../helpers/run.js';

// Screenshots are kept as test artifacts (not committed).
const ARTIFACTS = resolve(__dirname, '../../test-artifacts');

let child: ChildProcess;
let browser: Browser;
let url: string;
let home: string;
let demo: ReturnType<typeof seedDemo>;

beforeAll(async () => {
  home = tempDir();
  demo = seedDemo(home);
  for (let i = 0; i < 3; i++) demo.advance();
  const started = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()], envFor(home));
  child = started.child;
  url = await started.url;
  browser = await chromium.launch({
    executablePath: execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

/**
 * `fn` (of `f`, the number formats the page imports, /format.js) applied in the page to each of
 * `xs`. A string: the test's own source has its import() rewritten by vitest.
 */
function inPage(page: Page, fn: string, xs: number[]): Promise<string[]> {
  return page.evaluate(`import(${JSON.stringify(`${url}/format.js`)}).then((f) => ${JSON.stringify(xs)}.map(${fn}))`);
}

afterAll(async () => {
  await browser?.close();
  child?.kill('SIGKILL');
  demo?.close();
});

describe('the live page', () => {
  it('shows every session from the exporter, the one waiting on the user first, and follows new records without a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(`${url}/`);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    const post = await fetch(`${url}/api/v1/sessions`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

    await page.waitForSelector('#sessions tbody tr');
    const first = await page.locator('#sessions tbody tr').first().locator('td').allTextContents();
    expect(first.slice(0, 4)).toEqual(['claude-code', 'webshop', 'asking', 'question']);
    expect(first[6]).toMatch(/^\$\d+\.\d{2}(\d\d)?$/);
    // The live process's columns (processes are off here: no process owns a session).
    expect(first.slice(9)).toEqual(['–', '–', 'transcript-only']);
    const failed = page.locator('#sessions tbody tr', { hasText: 'docs-site' });
    expect(await failed.locator('td').nth(2).textContent()).toBe('error');
    // Spend today is every dollar counted (the demo's records are all of the last 25 minutes).
    const summary = (await (await fetch(`${url}/api/v1/summary`)).json()) as { spend_today_usd: number };
    const counted = sum(await (await fetch(`${url}/metrics`)).text(), 'coding_agent_cost_usd_total');
    if (new Date().getDate() === new Date(Date.now() - 25 * 60_000).getDate())
      expect(summary.spend_today_usd).toBeCloseTo(counted, 9);
    expect(summary.spend_today_usd).toBeGreaterThan(0);
    expect(await page.locator('#spend-today').textContent()).toBe(usd(summary.spend_today_usd));
    // The cost format the page is served is `sessions`' and `top`'s.
    const amounts = [0, 0.0052, 0.00031, 0.00004, 0.00995, 0.01, 0.014, 0.999, 1.5, 99.999, 1234.567];
    expect(await inPage(page, `f.usd`, amounts)).toEqual(amounts.map(usd));
    expect(await page.locator('#spend tbody tr').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });

    // A session that starts after the page loaded shows up in it.
    const session = '3f2c9a52-1d7e-4a8e-9d5b-7a1c0e6b2f10';
    const cwd = '/home/demo/src/late-arrival';
    const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${session}.jsonl`),
      `${JSON.stringify({
        type: 'user',
        sessionId: session,
        cwd,
        gitBranch: 'main',
        version: '2.1.332',
        timestamp: new Date().toISOString(),
        uuid: `${session}-0`,
        isSidechain: false,
        message: { role: 'user', content: 'Start' },
      })}\n`,
    );
    const late = page.locator('#sessions tbody tr', { hasText: 'late-arrival' });
    await late.waitFor({ timeout: 10_000 });
    expect(await late.locator('td').nth(2).textContent()).toBe('working');
    await page.waitForFunction(() => /updated/.test(document.getElementById('updated')!.textContent ?? ''));

    expect(errors).toEqual([]);
    expect(requests.every((r) => r.startsWith(url))).toBe(true);
    await page.close();
  }, 60_000);

  it("shows the usage-limit windows the exporter serves, with their share used, and the last 30 days' spend", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}/`);
    const summary = (await (await fetch(`${url}/api/v1/summary`)).json()) as Summary;
    // The demo's Codex session reports its 5-hour and weekly windows.
    expect(summary.limits.map((l) => `${l.harness} ${l.window}`)).toEqual(['codex 5h', 'codex 7d']);
    await page.waitForSelector('#limits tbody tr');
    const rows = await page
      .locator('#limits tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    expect(rows.map((r) => r.slice(0, 3))).toEqual(
      summary.limits.map((l) => [l.harness, l.window, `${Math.round(l.used_ratio * 100)}%`]),
    );
    expect(rows.map((r) => r[3])).toEqual([
      expect.stringMatching(/^[1-3]h\d\dm$/),
      expect.stringMatching(/^[34]d\d+h$/),
    ]);
    // The last 30 days' spend is the ledger's: every dollar counted falls on the last two days (the
    // demo's records are all of the last 25 minutes), and the chart shows it.
    const counted = sum(await (await fetch(`${url}/metrics`)).text(), 'coding_agent_cost_usd_total');
    expect(summary.spend_30d).toHaveLength(30);
    expect(summary.spend_30d.slice(-2).reduce((a, d) => a + d.cost_usd, 0)).toBeCloseTo(counted, 9);
    await page.locator('#history').waitFor();
    await page.close();
  }, 60_000);

  it('draws a bar per window and the last 30 days as a chart, from the JSON it is served', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const real = (await (await fetch(`${url}/api/v1/summary`)).json()) as Summary;
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    const days = (costs: number[]) =>
      costs.map((cost_usd, i) => ({ date: `2026-11-${String(i + 1).padStart(2, '0')}`, cost_usd }));
    let served: Summary = {
      ...real,
      limits: [
        // 20 s past the minute: the same text for the next half minute, however the page rounds.
        { harness: 'claude-code', window: '5h', used_ratio: 0.47, resets_at: at((2 * 60 + 13) * 60_000 + 20_000) },
        { harness: 'claude-code', window: '7d', used_ratio: 0.93, resets_at: at((3 * 24 + 4) * 3600_000 + 20_000) },
        // Reset a minute ago, after the JSON was rendered: it started over.
        { harness: 'codex', window: '5h', used_ratio: 0.8, resets_at: at(-60_000) },
        { harness: 'copilot-cli', window: 'premium_interactions', used_ratio: 0.8, resets_at: null },
      ],
      spend_30d: days(Array.from({ length: 30 }, (_, i) => (i === 29 ? 8 : i % 3 === 0 ? 0 : 2))),
    };
    await page.route(`${url}/api/v1/summary`, (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify(served) }),
    );
    await page.goto(`${url}/`);
    await page.waitForSelector('#limits tbody tr');
    const rows = await page
      .locator('#limits tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['claude-code', '5h', '47%', '2h13m'],
      ['claude-code', '7d', '93%', '3d4h'],
      ['copilot-cli', 'premium_interactions', '80%', '–'],
    ]);
    expect(
      await page
        .locator('#limits tbody .bar')
        .evaluateAll((bars) => bars.map((b) => [b.className, (b.firstChild as HTMLElement).style.width])),
    ).toEqual([
      ['bar', '47%'],
      ['bar full', '93%'],
      ['bar near', '80%'],
    ]);
    // The time to reset the page is served is `top`'s and the status line's.
    const spans = [
      0,
      30_000,
      59 * 60_000,
      60 * 60_000,
      61 * 60_000 + 29_000,
      1439 * 60_000,
      1440 * 60_000,
      5 * 86_400_000 + 7 * 3600_000,
    ];
    expect(await inPage(page, '(x) => f.timeLeft(x, 0)', spans)).toEqual(spans.map((x) => timeLeft(x, 0)));

    const chart = async () =>
      page.locator('#spend-chart rect').evaluateAll((rects) =>
        rects.map((r) => ({
          x: Number(r.getAttribute('x')),
          height: Number(r.getAttribute('height')),
          none: r.classList.contains('none'),
          title: r.textContent,
        })),
      );
    await page.waitForFunction(() => !document.getElementById('history')!.hidden);
    expect(await page.locator('#spend-30d').textContent()).toBe(usd(2 * 19 + 8));
    const month = await chart();
    expect(month).toHaveLength(30);
    expect(month[29]).toEqual({ x: 291, height: 40, none: false, title: '2026-11-30: $8.00' });
    expect(month[1]).toEqual({ x: 11, height: 10, none: false, title: '2026-11-02: $2.00' });
    expect(month[0]).toEqual({ x: 1, height: 1, none: true, title: '2026-11-01: $0.00' });
    await page.screenshot({ path: join(ARTIFACTS, 'page-limits.png'), fullPage: true });

    // One day of history: its bar on the right, where today is.
    served = { ...served, spend_30d: days([3.5]) };
    await page.waitForFunction(() => document.querySelectorAll('#spend-chart rect').length === 1);
    expect(await chart()).toEqual([{ x: 291, height: 40, none: false, title: '2026-11-01: $3.50' }]);
    expect(await page.locator('#spend-30d').textContent()).toBe('$3.50');
    // Nothing spent in 30 days: 30 days on the floor, $0.00.
    served = { ...served, spend_30d: days(Array.from({ length: 30 }, () => 0)) };
    await page.waitForFunction(() => document.querySelectorAll('#spend-chart rect.none').length === 30);
    expect(await page.locator('#spend-30d').textContent()).toBe('$0.00');
    // No history, no limits: neither is shown.
    served = { ...served, spend_30d: [], limits: [] };
    await page.waitForFunction(
      () => document.getElementById('history')!.hidden && document.getElementById('limits')!.hidden,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('lists every session its cards count: agents no session file is joined to too', async () => {
    const proc = fakeProc();
    proc.add(500, { argv: ['/usr/bin/python3', '/home/u/.local/bin/aider'], cwd: '/src/chat-bot' });
    const started = listening(
      ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()],
      envFor(home, {
        CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true',
        CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root,
      }),
    );
    try {
      const base = await started.url;
      await ready(base);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${base}/`);
      const agent = page.locator('#sessions tbody tr', { hasText: 'chat-bot' });
      await agent.waitFor({ timeout: 10_000 });
      expect((await agent.locator('td').allTextContents()).slice(0, 3)).toEqual(['aider', 'chat-bot', 'idle']);
      expect(await agent.locator('td').nth(6).textContent()).toBe('–');
      expect(await agent.locator('td').last().textContent()).toBe('process-only');
      const counted = (await page.locator('#by-status span').allTextContents()).reduce(
        (n, chip) => n + Number.parseInt(chip, 10),
        0,
      );
      expect(counted).toBe(await page.locator('#sessions tbody tr').count());
      await page.close();
    } finally {
      started.child.kill('SIGKILL');
    }
  }, 60_000);

  it('is readable on a phone: no sideways scrolling, the low-priority columns hidden', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await page.goto(`${url}/`);
    await page.waitForSelector('#sessions tbody tr');
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(scroll).toBeLessThanOrEqual(client);
    expect(await page.locator('#sessions thead th', { hasText: 'Model' }).isVisible()).toBe(false);
    expect(await page.locator('#sessions tbody tr').first().locator('td').nth(2).isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'page-phone.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
