// Where each harness looks on Windows, through node:path's win32 rules (the module is replaced by
// `path.win32` for this file: the code joins with whatever node:path is, and on Windows that is
// win32). The home is `%USERPROFILE%` (os.homedir() there); the dot-folder harnesses write under
// it, VS Code and its forks under `%APPDATA%\<editor>`, goose under `%APPDATA%\Block\goose\data`,
// Hermes, Crush, Zed and Warp under `%LOCALAPPDATA%`. Nothing here has run on Windows itself.

import { describe, expect, it, vi } from 'vitest';
import { HARNESSES } from '../../src/collectors/registry.js';
import type { HarnessId } from '../../src/session/types.js';

vi.mock('node:path', async () => {
  const real = await vi.importActual<typeof import('node:path')>('node:path');
  return { ...real.win32, default: real.win32 };
});

const USERPROFILE = 'C:\\Users\\me';
const APPDATA = `${USERPROFILE}\\AppData\\Roaming`;
const LOCALAPPDATA = `${USERPROFILE}\\AppData\\Local`;
const ENV = { USERPROFILE, APPDATA, LOCALAPPDATA };
const roots = Object.fromEntries(
  Object.entries(HARNESSES).map(([id, h]) => [id, h.defaultRoots(ENV, USERPROFILE)]),
) as Record<HarnessId, string[]>;

describe('harness roots on Windows', () => {
  it('are Windows paths under %USERPROFILE%, with no forward slash', () => {
    for (const [id, rs] of Object.entries(roots)) {
      for (const r of rs) expect(r, id).toMatch(/^C:\\Users\\me(\\[^\\/]+)*$/);
    }
  });

  it('keep the dot-folders under %USERPROFILE% where the harness does', () => {
    expect(roots['claude-code']).toContain(`${USERPROFILE}\\.claude`);
    expect(roots.codex).toEqual([`${USERPROFILE}\\.codex`]);
    expect(roots['gemini-cli']).toContain(`${USERPROFILE}\\.gemini`);
    expect(roots['copilot-cli'].some((r) => r.startsWith(`${USERPROFILE}\\.copilot`))).toBe(true);
    expect(roots.grok).toEqual([`${USERPROFILE}\\.grok`]);
    expect(roots['trae-cli']).toEqual([`${USERPROFILE}\\.trae\\cli`]);
  });

  it("look in every editor's user dir under %APPDATA% for the VS Code extensions", () => {
    const extensions: Partial<Record<HarnessId, string>> = {
      cline: 'saoudrizwan.claude-dev',
      'roo-code': 'rooveterinaryinc.roo-cline',
      kilo: 'kilocode.kilo-code',
    };
    for (const [id, extension] of Object.entries(extensions)) {
      for (const editor of ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf']) {
        expect(roots[id as HarnessId], `${id} in ${editor}`).toContain(
          `${APPDATA}\\${editor}\\User\\globalStorage\\${extension}\\tasks`,
        );
      }
    }
  });

  it('look for Copilot Chat in the user folder of VS Code, Insiders, VSCodium and Code - OSS under %APPDATA%', () => {
    for (const editor of ['Code', 'Code - Insiders', 'VSCodium', 'Code - OSS'])
      expect(roots['copilot-vscode']).toContain(`${APPDATA}\\${editor}\\User`);
  });

  it("find Cursor's editor in its user dir under %APPDATA%", () => {
    expect(roots.cursor).toContain(`${APPDATA}\\Cursor`);
  });

  it('find goose under %APPDATA%, Hermes, Crush, Zed and Warp under %LOCALAPPDATA%', () => {
    expect(roots.goose).toEqual([`${APPDATA}\\Block\\goose\\data`]);
    expect(roots.hermes).toEqual([`${LOCALAPPDATA}\\hermes`, `${USERPROFILE}\\.hermes`]);
    expect(roots.crush).toEqual([`${LOCALAPPDATA}\\crush`]);
    expect(roots.zed).toContain(`${LOCALAPPDATA}\\Zed\\threads`);
    expect(roots.warp).toEqual([`${LOCALAPPDATA}\\warp\\Warp\\data`]);
  });

  it("still take the harness's own variables first", () => {
    expect(HARNESSES.goose.defaultRoots({ ...ENV, GOOSE_PATH_ROOT: 'D:\\goose' }, USERPROFILE)).toEqual([
      'D:\\goose\\data',
    ]);
    expect(HARNESSES.hermes.defaultRoots({ ...ENV, HERMES_HOME: 'D:\\hermes' }, USERPROFILE)[0]).toBe('D:\\hermes');
    expect(HARNESSES.crush.defaultRoots({ ...ENV, XDG_DATA_HOME: 'D:\\data' }, USERPROFILE)).toEqual([
      'D:\\data\\crush',
    ]);
  });
});
