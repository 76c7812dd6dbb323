// The HTTP server on its own, on a real socket: the exposition rendered once per data change and
// shared by every scraper, the health endpoints, methods, content type, gzip, and slow clients
// dropped without holding up the others.

import { createHook } from 'node:async_hooks';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { RenderedExposition } from '../../src/metrics/prometheus.js';
import { startServer, type MetricsServer, type ServerOptions } from '../../src/http/server.js';
import { until } from '../helpers/run.js';

const servers: MetricsServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.server.closeAllConnections();
    await new Promise((r) => s.server.close(r));
  }
});

async function serve(render: () => string, opts: Partial<ServerOptions> = {}) {
  const exposition = new RenderedExposition(render);
  const s = await startServer({
    host: '127.0.0.1',
    port: 0,
    path: '/metrics',
    version: 'test',
    exposition,
    ready: () => true,
    log: createLogger('error'),
    ...opts,
  });
  servers.push(s);
  const address = s.server.address();
  return { exposition, port: typeof address === 'object' && address ? address.port : 0 };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(port: number, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A fresh connection each: concurrent scrapes are concurrent connections, as from many Prometheus servers.
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const TEXT = '# HELP x_total A counter.\n# TYPE x_total counter\nx_total 1\n';

describe('metrics server', () => {
  it('renders once for 200 concurrent scrapes and serves them all the same bytes, then once per change', async () => {
    let renders = 0;
    let value = 1;
    const { exposition, port } = await serve(() => {
      renders++;
      return `# TYPE x gauge\nx ${value}\n${'# padding\n'.repeat(5000)}`;
    });
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(port, '/metrics')));
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(new Set(answers.map((a) => a.body.toString())).size).toBe(1);
    expect(answers[0]!.body.toString()).toMatch(/^x 1$/m);
    expect(renders).toBe(1);

    value = 2;
    exposition.invalidate();
    exposition.invalidate();
    const after = await Promise.all(Array.from({ length: 20 }, () => get(port, '/metrics')));
    expect(after.every((a) => /^x 2$/m.test(a.body.toString()))).toBe(true);
    expect(renders).toBe(2);
  });

  it('renders nothing off the scrape path until a scraper has asked (an exporter nobody reads costs no renders)', async () => {
    let renders = 0;
    const { exposition, port } = await serve(() => `x ${++renders}\n`);
    exposition.invalidate();
    await new Promise((r) => setImmediate(r));
    expect(renders).toBe(0);
    expect((await get(port, '/metrics')).body.toString()).toBe('x 1\n');
    exposition.invalidate();
    await new Promise((r) => setImmediate(r));
    expect(renders).toBe(2); // rendered again off the scrape path, now that someone reads it
  });

  it('serves the Prometheus text content type, gzip when asked, and HEAD without a body', async () => {
    const { port } = await serve(() => TEXT);
    const plain = await get(port, '/metrics');
    expect(plain.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(TEXT);

    const zipped = await get(port, '/metrics', 'GET', { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(TEXT);
    const refused = await get(port, '/metrics', 'GET', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();

    const head = await get(port, '/metrics', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(TEXT.length));
    expect(head.body.length).toBe(0);
  });

  it('answers GET and HEAD only, with 405 and Allow otherwise', async () => {
    const { port } = await serve(() => TEXT);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const a = await get(port, '/metrics', method);
      expect(a.status, method).toBe(405);
      expect(a.headers.allow).toBe('GET, HEAD');
    }
    expect((await get(port, '/nope')).status).toBe(404);
  });

  it('is healthy at once and ready only once the first scan is done', async () => {
    let ready = false;
    const { port } = await serve(() => TEXT, { ready: () => ready });
    expect((await get(port, '/-/healthy')).status).toBe(200);
    expect((await get(port, '/healthz')).status).toBe(200);
    expect((await get(port, '/-/ready')).status).toBe(503);
    ready = true;
    expect((await get(port, '/-/ready')).status).toBe(200);
  });

  it('answers only a Host that names it: an address, a loopback name, its listen host or a configured name (DNS rebinding)', async () => {
    const { port } = await serve(() => TEXT, { allowedHosts: ['metrics.example.com', '.corp.example'] });
    const status = async (host: string, path = '/api/v1/sessions') => (await get(port, path, 'GET', { host })).status;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      'app.localhost',
      '[::1]:1',
      '10.1.2.3',
      'metrics.example.com',
      'corp.example:443',
      'a.corp.example',
    ]) {
      expect(await status(host, '/metrics'), host).toBe(200);
    }
    // A page at an attacker's name that resolves to 127.0.0.1 sends that name.
    for (const host of [
      'attacker.example',
      `attacker.example:${port}`,
      'localhost.attacker.example',
      'metrics.example.com.attacker.example',
      'xcorp.example',
      'a@127.0.0.1',
    ]) {
      for (const path of ['/', '/api/v1/sessions', '/metrics', '/-/healthy'])
        expect(await status(host, path), `${host} ${path}`).toBe(403);
    }
  });

  it('drops a client that never finishes its headers, answering others meanwhile', async () => {
    const { port } = await serve(() => TEXT, { timeouts: { headersMs: 500, idleMs: 2_000 } });
    const slow: Socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => slow.on('close', () => r()));
    slow.on('error', () => {});
    slow.resume();
    slow.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    // Slowloris: a header line now and then, never the blank line that ends them.
    const drip = setInterval(() => slow.write(`X-${Date.now()}: y\r\n`), 50);
    try {
      const others = await Promise.all(Array.from({ length: 20 }, () => get(port, '/metrics')));
      expect(others.every((a) => a.status === 200 && a.body.toString() === TEXT)).toBe(true);
      await closed;
    } finally {
      clearInterval(drip);
      slow.destroy();
    }
    expect((await get(port, '/metrics')).status).toBe(200);
  });

  it("drops a kept-alive client that trickles its next request's headers", async () => {
    const { port } = await serve(() => TEXT, { timeouts: { headersMs: 500, idleMs: 5_000 } });
    const slow: Socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => slow.on('close', () => r()));
    slow.on('error', () => {});
    const answered = new Promise<void>((r) => slow.once('data', () => r()));
    slow.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n');
    await answered;
    slow.resume();
    const drip = setInterval(() => slow.write(`X-${Date.now()}: y\r\n`), 50);
    try {
      await expect(closed).resolves.toBeUndefined();
    } finally {
      clearInterval(drip);
    }
  });

  it('arms no timer while no connection is open: an idle exporter is not woken for its clients', async () => {
    const armed: number[] = [];
    const hook = createHook({
      init(_id, type, _trigger, resource) {
        if (type === 'Timeout') armed.push((resource as { _idleTimeout: number })._idleTimeout);
      },
    }).enable();
    try {
      await serve(() => TEXT);
    } finally {
      hook.disable();
    }
    // A day is as good as never.
    expect(armed.filter((ms) => ms < 86_400_000)).toEqual([]);
  });

  it('closes a connection that sends nothing', { timeout: 5_000 }, async () => {
    const { port } = await serve(() => TEXT, { timeouts: { headersMs: 500, idleMs: 1_000 } });
    const idle = connect(port, '127.0.0.1');
    idle.on('error', () => {});
    idle.resume(); // read, so the server's end of the connection is seen
    await expect(new Promise<void>((r) => idle.on('close', () => r()))).resolves.toBeUndefined();
  });

  it('lets a right password not yet verified in under a flood of wrong ones from the same address', async () => {
    // Cost 8 (made by bcryptjs): each comparison takes tens of milliseconds, the flood's loops keep the thread busy.
    const users = new Map([['prom', '$2b$08$idaQDcBEXYWHZHswLrmcOOxloYVSqjDzew4jVFDJLSbZaXf831.gG']]);
    const { port } = await serve(() => TEXT, { web: { users, headers: {}, files: [] } });
    const basic = (password: string) => ({
      authorization: `Basic ${Buffer.from(`prom:${password}`).toString('base64')}`,
    });
    let [stop, guesses, answered] = [false, 0, 0];
    const loops = Array.from({ length: 6 }, async () => {
      while (!stop) {
        await get(port, '/metrics', 'GET', basic(`guess${guesses++}`));
        answered++;
      }
    });
    await until(async () => (answered >= 6 ? true : undefined), 30_000, 'the flood under way');
    const right = await get(port, '/metrics', 'GET', basic('s3cret'));
    stop = true;
    await Promise.all(loops);
    expect(right.status).toBe(200);
  });
});
