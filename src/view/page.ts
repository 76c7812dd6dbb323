// The live page at `/` and the JSON it refreshes from. The page is static files (web/),
// read once at start-up, and the number formats every viewer uses (format.ts, built to
// dist/web/format.js); its script fetches `/api/v1/sessions` and `/api/v1/summary` from the
// same origin. Nothing is loaded from elsewhere, and the Content-Security-Policy says so.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD, PACKAGE_ROOT } from '../files/package-root.js';
/** A body rendered once per change (the agent's `RenderedExposition`), never per request; gzipped once too. */
export interface Rendered {
  plain(): Buffer;
  gzip(): Buffer;
}

/** A path's content: `gzip` when the client accepts it (only the JSON, whose list of sessions runs to a megabyte, is gzipped). */
export type Content = (gzip: boolean) => { type: string; body: Buffer; gzipped?: boolean };

/** The JSON of `/api/v1/sessions` (the view records) and `/api/v1/summary`. */
export interface Views {
  sessions: Rendered;
  summary: Rendered;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const WEB = join(PACKAGE_ROOT, 'web');
const FORMAT = join(BUILD, 'web', 'format.js');
const JS = 'text/javascript; charset=utf-8';
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: JS },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the page's responses carry besides their content: nothing from elsewhere, never cached. */
export const PAGE_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

/** The page's paths and their content (its files, read once, and its JSON, rendered once per change). */
export function pageRoutes(
  views: Views,
  about: { version: string; metricsPath: string; processNote?: string },
): Map<string, Content> {
  const note = about.processNote ? `<p id="process-note" class="note">${escapeHtml(about.processNote)}</p>` : '';
  const fill = (text: string) =>
    text
      .replaceAll('{{version}}', escapeHtml(about.version))
      .replaceAll('{{metrics_path}}', escapeHtml(about.metricsPath))
      .replaceAll('{{process_note}}', note);
  const routes = new Map<string, Content>();
  for (const [path, a] of Object.entries(ASSETS)) {
    const file = { type: a.type, body: Buffer.from(fill(readFileSync(join(WEB, a.file), 'utf8'))) };
    routes.set(path, () => file);
  }
  // Built by `npm run build`: read when first asked, so that the routes are made from the sources too.
  let format: { type: string; body: Buffer } | undefined;
  routes.set('/format.js', () => (format ??= { type: JS, body: readFileSync(FORMAT) }));
  const json =
    (view: Rendered): Content =>
    (gzip) => ({ type: 'application/json; charset=utf-8', body: gzip ? view.gzip() : view.plain(), gzipped: gzip });
  routes.set('/api/v1/sessions', json(views.sessions));
  routes.set('/api/v1/summary', json(views.summary));
  return routes;
}
