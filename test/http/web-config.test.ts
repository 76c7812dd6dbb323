// The web configuration file: what it accepts, what it refuses (by key), and bcrypt checked
// against known hashes (OpenBSD's test vectors and hashes made by libcrypt's crypt(3)).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BasicAuth } from '../../src/http/basic-auth.js';
import { loadWebConfig } from '../../src/http/web-config.js';
import { tempDir } from '../helpers/run.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function configFile(yaml: string): string {
  const path = join(tempDir(), 'web.yml');
  writeFileSync(path, yaml);
  return path;
}

describe('basic auth', () => {
  const vectors: [string, string][] = [
    ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['', '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.'],
    ['s3cret', '$2b$04$C6UzMDM.H6dfI/f/IKxGhuOU5kfOwTSLdzprajyqZQc7Gnl9K8JPm'],
    ['s3cret', '$2y$10$KjwS7jNNSwsfeUn3IZ2qQOhYdFJOQ6RA/AtHmDF55ohX/oZGj6DYK'],
  ];

  it.each(vectors)('accepts the password %j for its hash and refuses another', async (password, hash) => {
    const auth = new BasicAuth();
    const users = new Map([['prom', hash]]);
    expect(await auth.check(users, basic('prom', password))).toBe('allowed');
    expect(await auth.check(users, basic('prom', `${password}x`))).toBe('refused');
    expect(await auth.check(users, basic('other', password))).toBe('refused');
    expect(await auth.check(users, undefined)).toBe('refused');
    expect(await auth.check(users, 'Bearer abc')).toBe('refused');
    await auth.close();
  });

  it('asks nothing when there are no users', async () => {
    expect(await new BasicAuth().check(new Map(), undefined)).toBe('allowed');
  });

  it('compares a credential once: verified or wrong, it is answered from memory', async () => {
    const auth = new BasicAuth();
    const users = new Map(vectors.slice(2, 3).map(([, hash]) => ['prom', hash]));
    for (let i = 0; i < 3; i++) expect(await auth.check(users, basic('prom', 's3cret'))).toBe('allowed');
    expect(auth.compares).toBe(1);
    // A wrong password tried again (a flood repeating itself) costs no comparison either.
    for (let i = 0; i < 2; i++) expect(await auth.check(users, basic('prom', 'wrong'))).toBe('refused');
    expect(auth.compares).toBe(2);
    // The same credential waiting many times at once is compared once for all.
    expect(await Promise.all(Array.from({ length: 5 }, () => auth.check(users, basic('prom', 'other'))))).toEqual(
      Array(5).fill('refused'),
    );
    expect(auth.compares).toBe(3);
    // A password changed in the file is compared again.
    expect(await auth.check(new Map([['prom', vectors[0]![1]]]), basic('prom', 's3cret'))).toBe('refused');
    expect(auth.compares).toBe(4);
    await auth.close();
  });

  it('compares one password at a time, off the main thread; a verified password is answered meanwhile', async () => {
    const auth = new BasicAuth();
    const users = new Map([['prom', vectors[3]![1]]]);
    expect(await auth.check(users, basic('prom', 's3cret'))).toBe('allowed');
    const flood = Array.from({ length: 6 }, (_, i) => auth.check(users, basic(i % 2 ? 'prom' : 'nobody', `guess${i}`)));
    const first = await Promise.race([
      auth.check(users, basic('prom', 's3cret')),
      ...flood.map(async (f) => `flood: ${await f}`),
    ]);
    expect(first).toBe('allowed');
    expect(await Promise.all(flood)).toEqual(Array(6).fill('refused'));
    await auth.close();
  });

  it("keeps a flood from one address within bounds, without keeping out another address's password", async () => {
    const auth = new BasicAuth();
    const users = new Map([['prom', vectors[2]![1]]]);
    const flood = Array.from({ length: 3 * BasicAuth.WAITING_MAX }, (_, i) =>
      auth.check(users, basic('prom', `guess${i}`), '10.0.0.66'),
    );
    let compared = 0;
    for (const f of flood) void f.then((v) => (compared += v === 'refused' ? 1 : 0));
    // Arriving after the room is full, it takes the place of the flood's latest; the addresses
    // take turns, so it waits for the comparison under way and the flood's turn before its own.
    expect(await auth.check(users, basic('prom', 's3cret'), '10.0.0.7')).toBe('allowed');
    expect(compared).toBe(2);
    const verdicts = await Promise.all(flood);
    // One compared at once, WAITING_MAX waiting, one of them given up for the newcomer.
    expect(verdicts.filter((v) => v === 'refused')).toHaveLength(BasicAuth.WAITING_MAX);
    expect(verdicts.filter((v) => v === 'busy')).toHaveLength(2 * BasicAuth.WAITING_MAX);
    expect(auth.compares).toBe(1 + BasicAuth.WAITING_MAX);
    await auth.close();
  });
});

describe('web configuration file', () => {
  it('reads users and headers', () => {
    const c = loadWebConfig(
      configFile(
        `basic_auth_users:\n  prom: "${'$2b$04$C6UzMDM.H6dfI/f/IKxGhuOU5kfOwTSLdzprajyqZQc7Gnl9K8JPm'}"\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n`,
      ),
    );
    expect(c.tls).toBeUndefined();
    expect([...c.users.keys()]).toEqual(['prom']);
    expect(c.headers).toEqual({ 'X-Frame-Options': 'deny' });
  });

  it.each([
    ['tls_server_config:\n  certfile: a.pem\n', 'tls_server_config.certfile: unknown key'],
    ['tls_server_config:\n  cert_file: a.pem\n', 'tls_server_config.cert_file: ENOENT'],
    [
      'tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n',
      'tls_server_config.cipher_suites: not supported',
    ],
    ['basic_auth_users:\n  prom: plaintext\n', 'basic_auth_users.prom: expected a bcrypt hash'],
    ['http_server_config:\n  headers:\n    Server: me\n', 'http_server_config.headers.Server: not one of'],
    [
      'http_server_config:\n  headers:\n    X-Frame-Options: allow\n',
      'http_server_config.headers.X-Frame-Options: expected one of deny, sameorigin',
    ],
    ['rate_limit:\n  burst: 1\n', 'rate_limit: not supported'],
    ['nonsense: 1\n', 'nonsense: unknown key'],
  ])('refuses %j naming the key', (yaml, message) => {
    expect(() => loadWebConfig(configFile(yaml))).toThrow(message);
  });
});
