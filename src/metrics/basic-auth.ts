// Basic auth for the endpoint, against the users and bcrypt hashes of the web configuration file
// (web-config.ts, which is loaded only when such a file is configured).

import bcrypt from 'bcryptjs';
import { createHash } from 'node:crypto';

// A hash of a password no one has, checked for unknown users so that an unknown user name takes
// as long to refuse as a wrong password (no user enumeration by timing).
const NOBODY = '$2b$10$abcdefghijklmnopqrstuuul6SsDg0.IxU0aWee1oMEso3nHW3Ju.';
const VERIFIED_MAX = 1024;

/**
 * Checks `Authorization: Basic` headers against the users' bcrypt hashes. bcrypt is slow by design
 * (tens of milliseconds): a verified user, hash and password is remembered (by a digest, not in
 * clear), so a scraper pays it once, not on every scrape, as exporter-toolkit does.
 */
export class BasicAuth {
  private readonly verified = new Set<string>();

  async check(users: ReadonlyMap<string, string>, authorization: string | undefined): Promise<boolean> {
    if (users.size === 0) return true;
    const m = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!m) return false;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = users.get(user);
    const digest = createHash('sha256').update(`${user}\0${hash ?? ''}\0${password}`).digest('hex');
    if (hash && this.verified.has(digest)) return true;
    const ok = await bcrypt.compare(password, hash ?? NOBODY);
    if (!ok || !hash) return false;
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.add(digest);
    return true;
  }
}
