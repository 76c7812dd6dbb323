// The web configuration file of Prometheus exporters (`--web.config.file`, the exporter-toolkit
// format): TLS with optional client certificates, basic auth with bcrypt hashes, and extra
// response headers (checked by basic-auth.ts). Read at start-up (a bad file stops it, naming the key) and again whenever the
// file or a certificate it names changes, so certificates can be renewed without a restart.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createSecureContext, type SecureVersion } from 'node:tls';
import YAML from 'yaml';
import { FolderWatcher } from '../files/watch.js';

const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuth = (typeof CLIENT_AUTH_TYPES)[number];

const TLS_VERSIONS: Record<string, SecureVersion> = {
  TLS10: 'TLSv1',
  TLS11: 'TLSv1.1',
  TLS12: 'TLSv1.2',
  TLS13: 'TLSv1.3',
};

// The headers exporter-toolkit lets a web config set, with the values it allows (any when absent).
const HEADERS: Record<string, string[] | undefined> = {
  'strict-transport-security': undefined,
  'x-content-type-options': ['nosniff'],
  'x-frame-options': ['deny', 'sameorigin'],
  'x-xss-protection': undefined,
  'content-security-policy': undefined,
};

// Keys of the format this exporter does not implement: refused by name rather than ignored.
const UNSUPPORTED = new Set([
  'tls_server_config.cert',
  'tls_server_config.key',
  'tls_server_config.client_ca',
  'tls_server_config.cipher_suites',
  'tls_server_config.curve_preferences',
  'tls_server_config.prefer_server_cipher_suites',
  'tls_server_config.client_allowed_sans',
  'http_server_config.http2',
  'rate_limit',
]);
const KEYS: Record<string, string[]> = {
  '': ['tls_server_config', 'http_server_config', 'basic_auth_users'],
  tls_server_config: ['cert_file', 'key_file', 'client_ca_file', 'client_auth_type', 'min_version', 'max_version'],
  http_server_config: ['headers'],
};

const BCRYPT_HASH = /^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/;

export interface TlsSettings {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
  clientAuth: ClientAuth;
  minVersion: SecureVersion;
  maxVersion: SecureVersion;
}

export interface WebConfig {
  tls?: TlsSettings;
  /** User name → bcrypt hash; empty: no authentication. */
  users: ReadonlyMap<string, string>;
  headers: Readonly<Record<string, string>>;
  /** The files it was read from (itself and the certificates it names), watched for changes. */
  files: string[];
}

type Node = Record<string, unknown>;

function section(doc: Node, name: string): Node {
  const v = doc[name] ?? {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${name}: expected a mapping`);
  return v as Node;
}

function checkKeys(node: Node, path: string): void {
  for (const k of Object.keys(node)) {
    const key = path ? `${path}.${k}` : k;
    if (UNSUPPORTED.has(key)) throw new Error(`${key}: not supported by this exporter`);
    if (!KEYS[path]!.includes(k)) throw new Error(`${key}: unknown key`);
  }
}

function text(node: Node, key: string, path: string): string {
  const v = node[key] ?? '';
  if (typeof v !== 'string') throw new Error(`${path}.${key}: expected a string`);
  return v;
}

/** Reads and checks a web configuration file; throws an Error naming the key that is wrong. */
export function loadWebConfig(path: string): WebConfig {
  const doc = (YAML.parse(readFileSync(path, 'utf8')) ?? {}) as unknown;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('expected a mapping at the top level');
  const root = doc as Node;
  checkKeys(root, '');
  const files = [path];
  // Paths in the file are relative to its folder, as exporter-toolkit reads them.
  const file = (key: string, t: Node): Buffer | undefined => {
    const p = text(t, key, 'tls_server_config');
    if (!p) return undefined;
    const full = resolve(dirname(path), p);
    files.push(full);
    try {
      return readFileSync(full);
    } catch (e) {
      throw new Error(`tls_server_config.${key}: ${(e as Error).message}`);
    }
  };

  let tls: TlsSettings | undefined;
  const t = section(root, 'tls_server_config');
  checkKeys(t, 'tls_server_config');
  if (Object.keys(t).length > 0) {
    const cert = file('cert_file', t);
    const key = file('key_file', t);
    const ca = file('client_ca_file', t);
    if (!cert) throw new Error('tls_server_config.cert_file: missing');
    if (!key) throw new Error('tls_server_config.key_file: missing');
    const clientAuth = (text(t, 'client_auth_type', 'tls_server_config') || 'NoClientCert') as ClientAuth;
    if (!CLIENT_AUTH_TYPES.includes(clientAuth)) {
      throw new Error(
        `tls_server_config.client_auth_type: "${clientAuth}" is not one of ${CLIENT_AUTH_TYPES.join(', ')}`,
      );
    }
    if (ca && clientAuth === 'NoClientCert')
      throw new Error('tls_server_config.client_ca_file: set without a client_auth_type');
    const version = (k: string, fallback: SecureVersion): SecureVersion => {
      const v = text(t, k, 'tls_server_config');
      if (!v) return fallback;
      const known = TLS_VERSIONS[v];
      if (!known)
        throw new Error(`tls_server_config.${k}: "${v}" is not one of ${Object.keys(TLS_VERSIONS).join(', ')}`);
      return known;
    };
    tls = {
      cert,
      key,
      ca,
      clientAuth,
      minVersion: version('min_version', 'TLSv1.2'),
      maxVersion: version('max_version', 'TLSv1.3'),
    };
    try {
      createSecureContext(tls);
    } catch (e) {
      throw new Error(`tls_server_config: ${(e as Error).message}`);
    }
  }

  const h = section(root, 'http_server_config');
  checkKeys(h, 'http_server_config');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(section(h, 'headers'))) {
    const lower = name.toLowerCase();
    if (!(lower in HEADERS))
      throw new Error(`http_server_config.headers.${name}: not one of ${Object.keys(HEADERS).join(', ')}`);
    const allowed = HEADERS[lower];
    if (typeof value !== 'string' || (allowed && !allowed.includes(value.toLowerCase()))) {
      throw new Error(
        `http_server_config.headers.${name}: ${allowed ? `expected one of ${allowed.join(', ')}` : 'expected a string'}`,
      );
    }
    headers[name] = value;
  }

  const users = new Map<string, string>();
  for (const [user, hash] of Object.entries(section(root, 'basic_auth_users'))) {
    if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash))
      throw new Error(`basic_auth_users.${user}: expected a bcrypt hash ($2y$…)`);
    users.set(user, hash);
  }
  return { tls, users, headers, files };
}

/**
 * Calls `changed` with the file read again (or the Error that reading it gave) whenever it or a
 * file it names changes. A burst of changes (an editor's save, a certificate and its key) is one read.
 */
export function watchWebConfig(
  path: string,
  first: WebConfig,
  changed: (c: WebConfig | Error) => void,
): { close(): void } {
  let files = first.files;
  let timer: NodeJS.Timeout | undefined;
  // Their folders are watched, not the files: an editor saves by writing another file and renaming it.
  const watcher = new FolderWatcher(
    0,
    (changedPath) => {
      if (!files.includes(changedPath)) return;
      timer ??= setTimeout(() => {
        timer = undefined;
        let next: WebConfig | Error;
        try {
          next = loadWebConfig(path);
        } catch (e) {
          next = e as Error;
        }
        if (!(next instanceof Error)) {
          const now = foldersOf(next.files);
          watcher.unwatch(foldersOf(files).filter((f) => !now.includes(f)));
          watcher.add(now);
          files = next.files;
        }
        changed(next);
      }, 100);
      // Past the system's limit of watches, a change shows at the next start, as without a watcher.
    },
    () => {},
  );
  watcher.add(foldersOf(files));
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}

function foldersOf(files: readonly string[]): string[] {
  return [...new Set(files.map((f) => dirname(f)))];
}
