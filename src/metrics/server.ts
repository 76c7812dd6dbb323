// The HTTP server: /metrics (through the OTel Prometheus exporter's handler), /healthz and the
// live page, with a cap on concurrent scrapes. Binds to loopback unless told otherwise:
// metrics name the projects a person works on.

import { createServer, type Server } from 'node:http';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { ConfigError } from '../config/load.js';
import { pageHandler, type Views } from '../view/page.js';

const MAX_IN_FLIGHT = 4;

export interface ServerOptions {
  host: string;
  port: number;
  path: string;
  version: string;
  /** The live page and its JSON (at `/` and `/api/v1/…`). */
  views?: Views;
}

export function startServer(exporter: PrometheusExporter, opts: ServerOptions): Promise<Server> {
  let inFlight = 0;
  const page = opts.views ? pageHandler(opts.views, { version: opts.version, metricsPath: opts.path }) : undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === opts.path) {
      if (inFlight >= MAX_IN_FLIGHT) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('too many concurrent scrapes\n');
        return;
      }
      inFlight++;
      res.on('close', () => inFlight--);
      exporter.getMetricsRequestHandler(req, res);
      return;
    }
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (page?.(url.pathname, req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new ConfigError(`listenAddress ${opts.host}:${opts.port}: ${e.message}`)));
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}
