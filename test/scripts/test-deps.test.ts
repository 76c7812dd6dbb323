// `npm test` needs promtool, prometheus, victoria-metrics, vmalert and openssl: with any missing
// and no way to install them, it stops at once and names the command that installs them.

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/run.js';

const SCRIPT = resolve(__dirname, '../../scripts/test-deps.mjs');

describe('scripts/test-deps.mjs', () => {
  it('passes when everything is on the PATH', () => {
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('stops naming the install command when programs are missing and apt-get is not there', () => {
    const bin = join(tempDir(), 'bin');
    mkdirSync(bin);
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { PATH: bin } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the tests need promtool, prometheus, victoria-metrics, vmalert, openssl');
    expect(r.stderr).toMatch(
      process.platform === 'darwin'
        ? /brew install prometheus victoriametrics openssl/
        : /sudo apt-get install -y --no-install-recommends prometheus victoria-metrics openssl/,
    );
  });
});
