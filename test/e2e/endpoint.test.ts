// The real binary's endpoint as Prometheus and its operators use it: 200 concurrent scrapes,
// health and readiness, and (with --web.config.file) TLS, client certificates, basic auth and
// headers, re-read when the file changes. Certificates are made with openssl for each run.

import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envFor, FIXTURES, listening, run, sum, tempDir, until } from '../helpers/run.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

async function serve(home: string, ...flags: string[]): Promise<string> {
  const { child, url } = listening(
    ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), ...flags],
    envFor(home),
  );
  children.push(child);
  return url;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
interface Options {
  method?: string;
  headers?: Record<string, string>;
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
}

/** One request on its own connection (fetch cannot be given a CA or a client certificate). */
function get(url: string, opts: Options = {}): Promise<Answer> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent: false,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function claudeHome(): string {
  const home = tempDir();
  cpSync(join(FIXTURES, 'captures/claude-code/tool'), home, { recursive: true });
  return home;
}

const INPUT = { harness: 'claude-code', token_type: 'input' };

describe('endpoint', () => {
  it('answers 200 concurrent scrapes, every one complete and identical', async () => {
    const started = Date.now() / 1000;
    const url = await serve(claudeHome());
    await until(async () => ((await get(`${url}/-/ready`)).status === 200 ? true : undefined), 20_000, 'ready');
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(`${url}/metrics`)));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    for (const a of answers) expect(sum(a.body, 'coding_agent_tokens_total', INPUT)).toBe(2534);
    // Identical but for the exporter's own figures (sampled on a timer, or timing a scan that ran
    // meanwhile: a busy machine can take seconds to answer 200), and rendered per change, not per request.
    const own = /^(# (HELP|TYPE) )?(process_|nodejs_|coding_agent_exporter_collector_)/;
    const bodies = answers.map((a) => a.body);
    expect(
      new Set(
        bodies.map((b) =>
          b
            .split('\n')
            .filter((l) => !own.test(l))
            .join('\n'),
        ),
      ).size,
    ).toBe(1);
    expect(new Set(bodies).size).toBeLessThan(20);
    expect((await get(`${url}/-/healthy`)).status).toBe(200);
    const metrics = answers[0]!.body;
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'process_open_fds',
      'process_max_fds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(metrics, name).toMatch(new RegExp(`^${name} [0-9.e+]+$`, 'm'));
    }
    // The process's own numbers, within what they can be for a just-started Node process.
    const value = (name: string) => sum(metrics, name);
    expect(value('process_start_time_seconds')).toBeGreaterThan(started - 1);
    expect(value('process_start_time_seconds')).toBeLessThan(Date.now() / 1000);
    expect(value('process_open_fds')).toBeGreaterThanOrEqual(3);
    expect(value('process_open_fds')).toBeLessThan(value('process_max_fds'));
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(value('nodejs_heap_size_used_bytes'));
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(1e6);
    expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
  });
});

/** A CA, a server certificate for 127.0.0.1 and client certificates (one from another CA), made by openssl. */
function certificates(): Record<
  'dir' | 'ca' | 'serverCert' | 'clientCert' | 'clientKey' | 'strangerCert' | 'strangerKey',
  string
> {
  const dir = tempDir('cae-tls-');
  const ssl = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca'])
    ssl('req', '-x509', ...ec, '-keyout', `${ca}-key.pem`, '-out', `${ca}.pem`, '-days', '1', '-subj', `/CN=${ca}`);
  const signed = (name: string, ca: string, ext: string) => {
    ssl('req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}-key.pem`,
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      `${name}.pem`,
      '-extfile',
      `${name}.ext`,
    );
  };
  signed('server', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  signed('client', 'ca', 'extendedKeyUsage=clientAuth\n');
  signed('stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  const p = (f: string) => join(dir, f);
  return {
    dir,
    ca: p('ca.pem'),
    serverCert: p('server.pem'),
    clientCert: p('client.pem'),
    clientKey: p('client-key.pem'),
    strangerCert: p('stranger.pem'),
    strangerKey: p('stranger-key.pem'),
  };
}

// bcrypt hashes of "s3cret" and "n3w" (crypt(3), cost 4 to keep the test quick).
const S3CRET = '$2b$04$C6UzMDM.H6dfI/f/IKxGhuOU5kfOwTSLdzprajyqZQc7Gnl9K8JPm';
const N3W = '$2b$04$abcdefghijklmnopqrstuuX/7wHuG8BTr/ruEM9.x6Mg1Zhd7R0Ku';
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

describe('endpoint with --web.config.file', () => {
  it('serves over TLS with basic auth and the configured headers, and re-reads the file when it changes', async () => {
    const certs = certificates();
    const web = join(certs.dir, 'web.yml');
    const config = (hash: string) =>
      [
        'tls_server_config:',
        '  cert_file: server.pem',
        '  key_file: server-key.pem',
        'basic_auth_users:',
        `  prom: "${hash}"`,
        'http_server_config:',
        '  headers:',
        '    X-Frame-Options: deny',
        '    Strict-Transport-Security: max-age=31536000',
        '',
      ].join('\n');
    writeFileSync(web, config(S3CRET));
    const url = (await serve(claudeHome(), '--web.config.file', web)).replace('http:', 'https:');
    const ca = readFileSync(certs.ca);

    const denied = await get(`${url}/metrics`, { ca });
    expect(denied.status).toBe(401);
    expect(denied.headers['www-authenticate']).toBe('Basic');
    expect((await get(`${url}/metrics`, { ca, headers: basic('prom', 'wrong') })).status).toBe(401);
    expect((await get(`${url}/metrics`, { ca, headers: basic('nobody', 's3cret') })).status).toBe(401);
    const ok = await until(
      async () => {
        const a = await get(`${url}/metrics`, { ca, headers: basic('prom', 's3cret') });
        return sum(a.body, 'coding_agent_tokens_total', INPUT) === 2534 ? a : undefined;
      },
      20_000,
      'metrics over TLS',
    );
    expect(ok.headers['x-frame-options']).toBe('deny');
    expect(ok.headers['strict-transport-security']).toBe('max-age=31536000');
    // The live page and its JSON are behind the same TLS and basic auth.
    for (const path of ['/', '/app.js', '/format.js', '/api/v1/sessions', '/api/v1/summary']) {
      expect((await get(`${url}${path}`, { ca })).status, path).toBe(401);
      const page = await get(`${url}${path}`, { ca, headers: basic('prom', 's3cret') });
      expect(page.status, path).toBe(200);
      expect(page.headers['x-frame-options'], path).toBe('deny');
    }
    expect(
      Array.isArray(JSON.parse((await get(`${url}/api/v1/sessions`, { ca, headers: basic('prom', 's3cret') })).body)),
    ).toBe(true);
    // Plain HTTP is not served, and a client that does not trust the CA refuses the certificate.
    await expect(get(url.replace('https:', 'http:'))).rejects.toThrow();
    await expect(get(`${url}/metrics`, { headers: basic('prom', 's3cret') })).rejects.toThrow(
      /self.signed|unable to verify|certificate/i,
    );

    writeFileSync(web, config(N3W));
    await until(
      async () =>
        (await get(`${url}/metrics`, { ca, headers: basic('prom', 'n3w') })).status === 200 ? true : undefined,
      10_000,
      'the new password',
    );
    expect((await get(`${url}/metrics`, { ca, headers: basic('prom', 's3cret') })).status).toBe(401);
  });

  it('serves a renewed certificate without a restart', async () => {
    const certs = certificates();
    const web = join(certs.dir, 'web.yml');
    writeFileSync(web, 'tls_server_config:\n  cert_file: server.pem\n  key_file: server-key.pem\n');
    const url = (await serve(claudeHome(), '--web.config.file', web)).replace('http:', 'https:');
    const oldCa = readFileSync(certs.ca);
    expect((await get(`${url}/-/healthy`, { ca: oldCa })).status).toBe(200);
    // Renewed from another CA: certificate and key replaced in place.
    const renewed = certificates();
    cpSync(join(renewed.dir, 'server.pem'), join(certs.dir, 'server.pem'));
    cpSync(join(renewed.dir, 'server-key.pem'), join(certs.dir, 'server-key.pem'));
    const newCa = readFileSync(renewed.ca);
    await until(
      async () => ((await get(`${url}/-/healthy`, { ca: newCa })).status === 200 ? true : undefined),
      10_000,
      'the renewed certificate',
    );
    await expect(get(`${url}/-/healthy`, { ca: oldCa })).rejects.toThrow();
  });

  it('requires a client certificate signed by the client CA when configured', async () => {
    const certs = certificates();
    const web = join(certs.dir, 'web.yml');
    writeFileSync(
      web,
      [
        'tls_server_config:',
        '  cert_file: server.pem',
        '  key_file: server-key.pem',
        '  client_ca_file: ca.pem',
        '  client_auth_type: RequireAndVerifyClientCert',
        '  min_version: TLS12',
        '',
      ].join('\n'),
    );
    const url = (await serve(claudeHome(), '--web.config.file', web)).replace('http:', 'https:');
    const ca = readFileSync(certs.ca);
    const client = { ca, cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) };
    expect((await get(`${url}/metrics`, client)).status).toBe(200);
    expect((await get(`${url}/-/healthy`, { ca })).status).toBe(403);
    const stranger = { ca, cert: readFileSync(certs.strangerCert), key: readFileSync(certs.strangerKey) };
    expect((await get(`${url}/metrics`, stranger)).status).toBe(403);
  });

  it('stops start-up naming the key when the file is wrong', async () => {
    const web = join(tempDir(), 'web.yml');
    writeFileSync(web, 'tls_server_config:\n  cert_file: missing.pem\n  key_file: missing-key.pem\n');
    const r = run(
      ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), '--web.config.file', web],
      envFor(tempDir()),
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^coding-agent-exporter: webConfigFile \(.*web\.yml\): tls_server_config\.cert_file: ENOENT/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
