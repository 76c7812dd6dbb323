// The live page at `/` and the JSON it refreshes from. The page is three static files (web/),
// read once at start-up; its script fetches `/api/v1/sessions` and `/api/v1/summary` from the
// same origin. Nothing is loaded from elsewhere, and the Content-Security-Policy says so.

import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionRecord } from '../cli/sessions.js';
import type { Summary } from './summary.js';

export interface Views {
  sessions(): SessionRecord[];
  summary(): Summary;
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const WEB = new URL('../../web/', import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A handler for the page's paths; returns false for any other path. */
export function pageHandler(
  views: Views, about: { version: string; metricsPath: string },
): (path: string, req: IncomingMessage, res: ServerResponse) => boolean {
  const fill = (text: string) => text
    .replaceAll('{{version}}', escapeHtml(about.version)).replaceAll('{{metrics_path}}', escapeHtml(about.metricsPath));
  const files = new Map(Object.entries(ASSETS).map(([path, a]) => [
    path, { body: Buffer.from(fill(readFileSync(new URL(a.file, WEB), 'utf8'))), type: a.type },
  ]));
  const json: Record<string, () => unknown> = { '/api/v1/sessions': () => views.sessions(), '/api/v1/summary': () => views.summary() };
  return (path, req, res) => {
    const file = files.get(path);
    const data = json[path];
    if (!file && !data) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return true;
    }
    const body = file ? file.body : Buffer.from(`${JSON.stringify(data!())}\n`);
    res.writeHead(200, {
      'content-type': file ? file.type : 'application/json; charset=utf-8',
      'content-length': body.length,
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
