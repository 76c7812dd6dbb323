// The live page's routes: its files filled in once at start-up.

import { describe, expect, it } from 'vitest';
import { pageRoutes, type Rendered } from '../../src/view/page.js';

const empty: Rendered = { plain: () => Buffer.from('[]'), gzip: () => Buffer.from('') };
const index = (processNote?: string) =>
  pageRoutes({ sessions: empty, summary: empty }, { version: '1.2.3', metricsPath: '/metrics', processNote }).get('/')!(
    false,
  ).body.toString();

describe('the page', () => {
  it('says where statuses come from where there is no process table (Windows), escaped', () => {
    const html = index('no process table on this platform (win32): statuses come from session files & hooks alone');
    expect(html).toContain(
      '<p id="process-note" class="note">no process table on this platform (win32): statuses come from session files &#38; hooks alone</p>',
    );
  });

  it('says nothing of it where the process table is read, and leaves no placeholder', () => {
    const html = index();
    expect(html).not.toContain('process-note');
    expect(html).not.toMatch(/\{\{\w+\}\}/);
    expect(html).toContain('<small>1.2.3</small>');
  });
});
