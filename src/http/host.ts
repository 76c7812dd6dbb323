// DNS rebinding: a web page at a name its owner then points at 127.0.0.1 reaches this server from
// the visitor's browser, and the same-origin rule lets the page read the answers (working
// directories, branches, pids). Such a request carries the page's name in Host, so only Host
// values that no such page can have are answered: an IP address (a browser sends one only when
// the address itself was typed, and that is the page's origin), `localhost` and names under
// `.localhost` (they only ever mean this machine), the host the server listens on, and the names
// configured in `web.allowedHosts` (a name in front of a proxy; `.example.com` takes the name and
// every name under it).

import { isIP } from 'node:net';

/** Whether a request with this Host header is answered (undefined: no header, an HTTP/1.0 client, never a browser). */
export function hostAllowed(host: string | undefined, listenHost: string, allowed: readonly string[]): boolean {
  if (host === undefined) return true;
  // A Host is a name or address and a port, nothing else (no user, no path).
  if (!/^[^@/?#\s\\]+$/.test(host)) return false;
  const parsed = URL.parse(`http://${host}`);
  if (!parsed) return false;
  const name = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(name)) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === listenHost.toLowerCase()) return true;
  return allowed.some((entry) => {
    const a = entry.toLowerCase();
    return a.startsWith('.') ? name === a.slice(1) || name.endsWith(a) : name === a;
  });
}
