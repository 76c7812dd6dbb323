// The HTTP(S) server: /metrics, the health endpoints /-/healthy and /-/ready (and /healthz, kept
// for existing probes) and the live page at / with its JSON, all behind the same TLS and basic auth,
// and answered only for the Host names host.ts allows. Binds to loopback unless told otherwise: metrics name
// the projects a person works on. /metrics writes bytes rendered when the data last changed, so
// any number of concurrent scrapes cost the same as one. Slow clients are dropped: headers must
// arrive within a deadline and idle connections are closed.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { ConfigError } from '../config/load.js';
import type { Logger } from '../log.js';
import { CONTENT_TYPE, type RenderedExposition } from '../metrics/prometheus.js';
import { BasicAuth } from './basic-auth.js';
import { dropSlowClients } from './deadlines.js';
import { hostAllowed } from './host.js';
import type { TlsSettings, WebConfig } from './web-config.js';
import { PAGE_HEADERS, pageRoutes, type Views } from '../view/page.js';

export interface Timeouts {
  /** A request's headers must have arrived within this time (slowloris). */
  headersMs: number;
  /** A connection with nothing to do for this long is closed. */
  idleMs: number;
}

const TIMEOUTS: Timeouts = { headersMs: 10_000, idleMs: 60_000 };

export interface ServerOptions {
  host: string;
  port: number;
  path: string;
  version: string;
  exposition: RenderedExposition;
  /** Whether the first scan is done (`/-/ready`). */
  ready: () => boolean;
  log: Logger;
  web?: WebConfig;
  timeouts?: Timeouts;
  /** The live page and its JSON (at `/` and `/api/v1/…`). */
  views?: Views;
  /** Said on the page where there is no process table (Windows). */
  processNote?: string;
  /** Host names answered besides addresses, loopback names and `host` (host.ts). */
  allowedHosts?: readonly string[];
}

export interface MetricsServer {
  server: Server;
  /** A web configuration read again, or the error that reading it gave (every request is refused until it is fixed). */
  setWebConfig(web: WebConfig | Error): void;
}

const ALLOW = 'GET, HEAD';
// The longest a Node timer waits (a longer one fires at once).
const NEVER_MS = 2 ** 31 - 1;

/** Whether an Accept-Encoding header accepts gzip (`gzip;q=0` refuses it). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part
      .trim()
      .split(';')
      .map((s) => s.trim());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

function secureOptions(tls: TlsSettings) {
  return { cert: tls.cert, key: tls.key, ca: tls.ca, minVersion: tls.minVersion, maxVersion: tls.maxVersion };
}

/** Whether the connection's client certificate satisfies `client_auth_type`. */
function clientCertOk(req: IncomingMessage, tls: TlsSettings | undefined): boolean {
  if (!tls) return true;
  const socket = req.socket as TLSSocket;
  const given = Object.keys(socket.getPeerCertificate?.() ?? {}).length > 0;
  switch (tls.clientAuth) {
    case 'RequireAnyClientCert':
      return given;
    case 'VerifyClientCertIfGiven':
      return !given || socket.authorized;
    case 'RequireAndVerifyClientCert':
      return given && socket.authorized;
    default:
      return true;
  }
}

export async function startServer(opts: ServerOptions): Promise<MetricsServer> {
  let web: WebConfig | Error = opts.web ?? { users: new Map(), headers: {}, files: [] };
  const auth = new BasicAuth();
  const timeouts = opts.timeouts ?? TIMEOUTS;
  const startedTls = opts.web?.tls;

  const respond = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string | Buffer,
    headers: Record<string, string | number> = {},
  ) => {
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...headers,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  // Every path served, GET and HEAD only.
  const healthy = (req: IncomingMessage, res: ServerResponse) => respond(req, res, 200, 'ok\n');
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>([
    [
      opts.path,
      (req, res) => {
        const gzip = acceptsGzip(req.headers['accept-encoding']);
        const body = gzip ? opts.exposition.gzip() : opts.exposition.plain();
        respond(req, res, 200, body, {
          'content-type': CONTENT_TYPE,
          vary: 'Accept-Encoding',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
      },
    ],
    ['/-/healthy', healthy],
    ['/healthz', healthy],
    [
      '/-/ready',
      (req, res) => {
        if (opts.ready()) respond(req, res, 200, 'ready\n');
        else respond(req, res, 503, 'not ready: the first scan of the session files is not done\n');
      },
    ],
  ]);
  if (opts.views) {
    for (const [path, content] of pageRoutes(opts.views, {
      version: opts.version,
      metricsPath: opts.path,
      processNote: opts.processNote,
    })) {
      routes.set(path, (req, res) => {
        const { type, body, gzipped } = content(acceptsGzip(req.headers['accept-encoding']));
        respond(req, res, 200, body, {
          'content-type': type,
          ...PAGE_HEADERS,
          ...(gzipped ? { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } : {}),
        });
      });
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!hostAllowed(req.headers.host, opts.host, opts.allowedHosts ?? [])) {
      respond(
        req,
        res,
        403,
        'this Host is not answered (DNS rebinding); a name in front of a proxy goes in web.allowedHosts\n',
      );
      return;
    }
    if (web instanceof Error) {
      respond(req, res, 500, 'the web configuration file is invalid; see the log\n');
      return;
    }
    for (const [name, value] of Object.entries(web.headers)) res.setHeader(name, value);
    if (!clientCertOk(req, web.tls)) {
      respond(req, res, 403, 'a valid client certificate is required\n');
      return;
    }
    const verdict = await auth.check(web.users, req.headers.authorization, req.socket.remoteAddress);
    if (verdict === 'busy') {
      respond(req, res, 503, 'too many passwords waiting to be checked; try again\n', { 'retry-after': 1 });
      return;
    }
    if (verdict === 'refused') {
      respond(req, res, 401, 'unauthorized\n', { 'www-authenticate': 'Basic' });
      return;
    }
    const route = routes.get(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!route) {
      respond(req, res, 404, 'not found\n');
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      respond(req, res, 405, `method not allowed: ${ALLOW} only\n`, { allow: ALLOW });
    } else {
      route(req, res);
    }
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((e: unknown) => {
      opts.log.error('request failed', { path: req.url, error: String(e) });
      if (!res.headersSent) respond(req, res, 500, 'internal error\n');
      else res.destroy();
    });
  };
  const serverOptions = {
    // Node's deadlines off: its timer checking them would run every second, connections or not
    // (`dropSlowClients` keeps the deadline per connection instead).
    headersTimeout: 0,
    requestTimeout: 0,
    connectionsCheckingInterval: NEVER_MS,
    keepAliveTimeout: Math.min(5_000, timeouts.idleMs),
  };
  // The client certificate is asked for (and checked per request, from the current configuration)
  // when the configuration at start-up asks for one; a TLS handshake that stalls is dropped too.
  // HTTPS's modules (TLS, crypto's) only when it is served: each module loaded is start-up time.
  const server: Server = startedTls
    ? (await import('node:https')).createServer(
        {
          ...serverOptions,
          ...secureOptions(startedTls),
          requestCert: startedTls.clientAuth !== 'NoClientCert',
          rejectUnauthorized: false,
          handshakeTimeout: timeouts.headersMs,
        },
        listener,
      )
    : createHttpServer(serverOptions, listener);
  server.setTimeout(timeouts.idleMs, (socket) => socket.destroy());
  dropSlowClients(server, timeouts.headersMs, Boolean(startedTls));
  server.on('close', () => void auth.close());

  const setWebConfig = (next: WebConfig | Error) => {
    if (next instanceof Error) {
      opts.log.error('web configuration refused: every request fails until it is fixed', { error: next.message });
    } else if (
      Boolean(next.tls) !== Boolean(startedTls) ||
      (next.tls?.clientAuth !== 'NoClientCert') !== (startedTls?.clientAuth !== 'NoClientCert')
    ) {
      // HTTP or HTTPS, and whether clients are asked for a certificate, are fixed when the server starts.
      opts.log.warn(
        'web configuration: switching TLS or client certificates on or off takes a restart; the rest applies now',
      );
    }
    if (!(next instanceof Error) && next.tls && startedTls)
      (server as HttpsServer).setSecureContext(secureOptions(next.tls));
    if (!(next instanceof Error))
      opts.log.info('web configuration read', { tls: Boolean(next.tls), users: next.users.size });
    web = next;
  };

  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new ConfigError(`listenAddress ${opts.host}:${opts.port}: ${e.message}`)));
    // No host: every interface (IPv6 and IPv4 where the system has both).
    server.listen(opts.port, opts.host || undefined, () => resolve({ server, setWebConfig }));
  });
}
