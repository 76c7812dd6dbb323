// Basic auth for the endpoint, against the users and bcrypt hashes of the web configuration file
// (web-config.ts, which is loaded only when such a file is configured).

import { createHash } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startThread, threadScript } from '../threads.js';
import type { Compare, Compared } from './bcrypt-worker.js';

// A hash of a password no one has, checked for unknown users so that an unknown user name takes
// as long to refuse as a wrong password (no user enumeration by timing).
const NOBODY = '$2b$10$abcdefghijklmnopqrstuuul6SsDg0.IxU0aWee1oMEso3nHW3Ju.';
const REMEMBERED_MAX = 1024;
const SCRIPT = threadScript('http/bcrypt-worker.js');

/** allowed: in; refused: no or wrong credentials (401); busy: too many passwords waiting to be compared (503). */
export type Verdict = 'allowed' | 'refused' | 'busy';

/** A credential waiting for its comparison; `done` gets undefined when it is turned away uncompared. */
interface Waiting {
  password: string;
  hash: string;
  done: (ok: boolean | undefined) => void;
}

/**
 * Checks `Authorization: Basic` headers against the users' bcrypt hashes. bcrypt is slow by design
 * (tens of milliseconds at cost 10, seconds at 14): a credential compared, right or wrong, is
 * remembered (by a digest, not in clear), so a scraper pays it once, not on every scrape, as
 * exporter-toolkit does, and a wrong password tried again costs nothing. The comparisons run one
 * at a time on a thread of their own: bcryptjs's async compare runs on the main thread (in 100 ms
 * slices), where a flood of wrong passwords held up every scrape for seconds.
 *
 * Credentials not yet compared wait their turn, never turned away while there is room: a flood of
 * wrong passwords turned away every password beyond four at once, and with it a right one not yet
 * verified (after a restart, say). The wait is fair across clients (their addresses take turns),
 * the same credential waiting twice is compared once, and the room is bounded: when it is full,
 * the client with the most waiting gives up its latest (503), so a flood from one address cannot
 * keep out another's password.
 */
export class BasicAuth {
  /** Credentials waiting for a comparison, all clients together, at most. */
  static readonly WAITING_MAX = 64;
  /** Comparisons started (a credential remembered is not compared again). */
  compares = 0;
  private readonly verified = new Set<string>();
  private readonly wrong = new Set<string>();
  /** Each credential's comparison under way or waiting, by digest: one for all who present it. */
  private readonly comparing = new Map<string, Promise<boolean | undefined>>();
  /** Waiting credentials by client, the clients in turn order (the next first). */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  private running = false;
  private readonly pending = new Map<number, (ok: boolean | undefined) => void>();
  private worker: Worker | undefined;
  private nextId = 0;

  /** `client`: who asks (its address), for the turns. */
  async check(users: ReadonlyMap<string, string>, authorization: string | undefined, client = ''): Promise<Verdict> {
    if (users.size === 0) return 'allowed';
    const m = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!m) return 'refused';
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return 'refused';
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = users.get(user);
    // The user's hash is in the digest: a password changed in the file is compared again.
    const digest = createHash('sha256')
      .update(`${user}\0${hash ?? ''}\0${password}`)
      .digest('hex');
    if (hash && this.verified.has(digest)) return 'allowed';
    if (this.wrong.has(digest)) return 'refused';
    let comparison = this.comparing.get(digest);
    if (!comparison) {
      comparison = this.enqueue(client, password, hash ?? NOBODY);
      this.comparing.set(digest, comparison);
      void comparison.then(() => this.comparing.delete(digest));
    }
    const ok = await comparison;
    if (ok === undefined) return 'busy';
    const remembered = ok && hash ? this.verified : this.wrong;
    if (remembered.size >= REMEMBERED_MAX) remembered.clear();
    remembered.add(digest);
    return ok && hash ? 'allowed' : 'refused';
  }

  /** Stops the thread (it is started again when needed); comparisons under way are turned away (busy). */
  async close(): Promise<void> {
    await this.worker?.terminate();
  }

  private enqueue(client: string, password: string, hash: string): Promise<boolean | undefined> {
    return new Promise((done) => {
      if (this.waitingCount >= BasicAuth.WAITING_MAX) {
        const longest = [...this.waiting.values()].reduce((a, b) => (b.length > a.length ? b : a));
        // The newcomer's client would have the most waiting (ties go to those already waiting).
        if ((this.waiting.get(client)?.length ?? 0) + 1 >= longest.length) return done(undefined);
        longest.pop()!.done(undefined);
        this.waitingCount--;
      }
      const queue = this.waiting.get(client) ?? [];
      queue.push({ password, hash, done });
      this.waiting.set(client, queue);
      this.waitingCount++;
      this.next();
    });
  }

  /** Compares the next client's first credential, if none is being compared. */
  private next(): void {
    if (this.running) return;
    const turn = this.waiting.entries().next();
    if (turn.done) return;
    const [client, queue] = turn.value;
    const w = queue.shift()!;
    this.waitingCount--;
    // Its turn is over: it goes last, or leaves with nothing waiting.
    this.waiting.delete(client);
    if (queue.length > 0) this.waiting.set(client, queue);
    this.running = true;
    void this.compare(w.password, w.hash).then((ok) => {
      this.running = false;
      w.done(ok);
      this.next();
    });
  }

  private compare(password: string, hash: string): Promise<boolean | undefined> {
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
    // Stopped or failed (an error is followed by its exit): what it was comparing is not known
    // (busy, and not remembered), and the next comparison starts a new thread.
    worker.on('error', () => {});
    worker.on('exit', () => {
      for (const resolve of this.pending.values()) resolve(undefined);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }
}
