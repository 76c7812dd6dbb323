// Basic auth for the endpoint, against the users and bcrypt hashes of the web configuration file
// (web-config.ts, which is loaded only when such a file is configured).

import { createHash } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startThread, threadScript } from '../threads.js';
import type { Compare, Compared } from './bcrypt-worker.js';

// A hash of a password no one has, checked for unknown users so that an unknown user name takes
// as long to refuse as a wrong password (no user enumeration by timing).
const NOBODY = '$2b$10$abcdefghijklmnopqrstuuul6SsDg0.IxU0aWee1oMEso3nHW3Ju.';
const VERIFIED_MAX = 1024;
const SCRIPT = threadScript('metrics/bcrypt-worker.js');

/** allowed: in; refused: no or wrong credentials (401); busy: too many passwords being compared already (503). */
export type Verdict = 'allowed' | 'refused' | 'busy';

/**
 * Checks `Authorization: Basic` headers against the users' bcrypt hashes. bcrypt is slow by design
 * (tens of milliseconds at cost 10, seconds at 14): a verified user, hash and password is remembered
 * (by a digest, not in clear), so a scraper pays it once, not on every scrape, as exporter-toolkit
 * does. The comparisons run on one thread of their own, a few at a time: bcryptjs's async compare
 * runs on the main thread (in 100 ms slices), where a flood of wrong passwords held up every
 * scrape for seconds. Beyond those few, a password is turned away uncompared (busy), so a flood
 * costs one core at most and never the main thread.
 */
export class BasicAuth {
  /** Comparisons under way or waiting for the thread at most. */
  static readonly COMPARES_AT_ONCE = 4;
  /** Comparisons started (a verified password is not compared again). */
  compares = 0;
  private readonly verified = new Set<string>();
  private readonly pending = new Map<number, (ok: boolean) => void>();
  private worker: Worker | undefined;
  private nextId = 0;

  async check(users: ReadonlyMap<string, string>, authorization: string | undefined): Promise<Verdict> {
    if (users.size === 0) return 'allowed';
    const m = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!m) return 'refused';
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return 'refused';
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = users.get(user);
    const digest = createHash('sha256').update(`${user}\0${hash ?? ''}\0${password}`).digest('hex');
    if (hash && this.verified.has(digest)) return 'allowed';
    if (this.pending.size >= BasicAuth.COMPARES_AT_ONCE) return 'busy';
    const ok = await this.compare(password, hash ?? NOBODY);
    if (!ok || !hash) return 'refused';
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.add(digest);
    return 'allowed';
  }

  /** Stops the thread (it is started again when needed); comparisons under way are refused. */
  async close(): Promise<void> {
    await this.worker?.terminate();
  }

  private compare(password: string, hash: string): Promise<boolean> {
    this.compares++;
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, password, hash } satisfies Compare);
    });
  }

  private start(): Worker {
    const worker = startThread(SCRIPT);
    // The thread never keeps the process alive: it only ever answers the server's requests.
    worker.unref();
    worker.on('message', ({ id, ok }: Compared) => {
      this.pending.get(id)?.(ok);
      this.pending.delete(id);
    });
    // Stopped or failed (an error is followed by its exit): what it was comparing is refused, and
    // the next comparison starts a new thread.
    worker.on('error', () => {});
    worker.on('exit', () => {
      for (const resolve of this.pending.values()) resolve(false);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }
}
