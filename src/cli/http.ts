// A running exporter's or a store's HTTP API, as `top --url` and `report --from` reach them: a user
// and password in the URL go into a basic-auth header (never into a message), https as Node's
// fetch does it (the system's CAs and NODE_EXTRA_CA_CERTS).

export interface Http {
  /** The address without the user and password: what messages show. */
  origin: string;
  /** The JSON at `path` (with its query), or an error naming the path and why. */
  get(path: string): Promise<unknown>;
}

/** An address without a scheme is http's (`prom:pw@host:10477` is a user and password, not a scheme). */
export function httpClient(address: string, timeoutMs = 5000): Http {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('expected an http:// or https:// URL');
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = url.password = '';
  }
  // A path under the address's own (a store behind /prometheus/), not from the host's root.
  const base = url.href.endsWith('/') ? url.href : `${url.href}/`;
  return {
    origin: url.origin,
    get: async (path: string) => {
      const shown = path.split('?')[0]!;
      const r = await fetch(new URL(path.replace(/^\//, ''), base), {
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      }).catch((e: unknown) => {
        // fetch says `fetch failed`; why is in its cause (`connect ECONNREFUSED 127.0.0.1:1`).
        const why = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
        throw new Error(`${shown}: ${why}`);
      });
      if (!r.ok) {
        // A Prometheus API says why in its JSON (`{"status":"error","error":"parse error …"}`).
        const why = await r.json().then(
          (j: { error?: unknown }) => (typeof j?.error === 'string' ? `: ${j.error}` : ''),
          () => '',
        );
        throw new Error(`${shown}: HTTP ${r.status}${why}`);
      }
      return r.json() as Promise<unknown>;
    },
  };
}
