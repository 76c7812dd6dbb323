// The live page in a real browser: headless Chromium (Debian's package) loads `/` from `serve`
// on the demo's sample home, and the table follows a record appended after it loaded.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/demo.js';
import { usd } from '../../src/view/records.js';
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
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

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
    const summary = await (await fetch(`${url}/api/v1/summary`)).json() as { spend_today_usd: number };
    const counted = sum(await (await fetch(`${url}/metrics`)).text(), 'coding_agent_cost_usd_total');
    if (new Date().getDate() === new Date(Date.now() - 25 * 60_000).getDate()) expect(summary.spend_today_usd).toBeCloseTo(counted, 9);
    expect(summary.spend_today_usd).toBeGreaterThan(0);
    expect(await page.locator('#spend-today').textContent()).toBe(usd(summary.spend_today_usd));
    // The page's copy of the cost format is `sessions`' and `top`'s.
    const amounts = [0, 0.0052, 0.00031, 0.00004, 0.00995, 0.01, 0.014, 0.999, 1.5, 99.999, 1234.567];
    expect(await page.evaluate((xs) => xs.map((x) => (window as unknown as { usd(n: number): string }).usd(x)), amounts)).toEqual(amounts.map(usd));
    expect(await page.locator('#spend tbody tr').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });

    // A session that starts after the page loaded shows up in it.
    const session = '3f2c9a52-1d7e-4a8e-9d5b-7a1c0e6b2f10';
    const cwd = '/home/demo/src/late-arrival';
    const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${session}.jsonl`), `${JSON.stringify({
      type: 'user', sessionId: session, cwd, gitBranch: 'main', version: '2.1.332', timestamp: new Date().toISOString(),
      uuid: `${session}-0`, isSidechain: false, message: { role: 'user', content: 'Start' },
    })}\n`);
    const late = page.locator('#sessions tbody tr', { hasText: 'late-arrival' });
    await late.waitFor({ timeout: 10_000 });
    expect(await late.locator('td').nth(2).textContent()).toBe('working');
    await page.waitForFunction(() => /updated/.test(document.getElementById('updated')!.textContent ?? ''));

    expect(errors).toEqual([]);
    expect(requests.every((r) => r.startsWith(url))).toBe(true);
    await page.close();
  }, 60_000);

  it('lists every session its cards count: agents no session file is joined to too', async () => {
    const proc = fakeProc();
    proc.add(500, { argv: ['/usr/bin/python3', '/home/u/.local/bin/aider'], cwd: '/src/chat-bot' });
    const started = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()],
      envFor(home, { CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true', CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root }));
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
      const counted = (await page.locator('#by-status span').allTextContents()).reduce((n, chip) => n + Number.parseInt(chip, 10), 0);
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
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(scroll).toBeLessThanOrEqual(client);
    expect(await page.locator('#sessions thead th', { hasText: 'Model' }).isVisible()).toBe(false);
    expect(await page.locator('#sessions tbody tr').first().locator('td').nth(2).isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'page-phone.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
