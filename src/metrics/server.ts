// The HTTP server: /metrics (through the OTel Prometheus exporter's handler), /healthz and a
// landing page, with a cap on concurrent scrapes. Binds to loopback unless told otherwise:
// metrics name the projects a person works on.

import { createServer, type Server } from 'node:http';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { ConfigError } from '../config/load.js';

const MAX_IN_FLIGHT = 4;

export interface ServerOptions {
  host: string;
  port: number;
  path: string;
  version: string;
}

export function startServer(exporter: PrometheusExporter, opts: ServerOptions): Promise<Server> {
  let inFlight = 0;
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
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><head><title>coding-agent-exporter</title></head><body>` +
          `<h1>coding-agent-exporter ${opts.version}</h1>` +
          `<p>Metrics of AI coding-agent sessions read from their session files.</p>` +
          `<ul><li><a href="${opts.path}">${opts.path}</a></li><li><a href="/healthz">/healthz</a></li></ul></body></html>\n`,
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new ConfigError(`listenAddress ${opts.host}:${opts.port}: ${e.message}`)));
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}
