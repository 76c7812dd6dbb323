// Where each harness looks on macOS: the roots that differ from Linux's are the VS Code extensions'
// user dirs under `~/Library/Application Support/<editor>` (Cline, Roo Code, Kilo Code, Copilot Chat), for VS Code
// and each fork. Every other harness writes to the same dot-folder (or XDG path) on both: their
// CLIs (OpenCode and Kilo through xdg-basedir, goose through etcetera's XDG strategy, Crush, Amp)
// use `~/.local/share` on macOS too. Zed keeps its threads under `~/Library/Application Support/Zed`,
// Warp its database under `~/Library` (its app group's container).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/run.js';
import { HARNESSES, rootsOf } from '../../src/collectors/registry.js';
import type { HarnessId } from '../../src/session/types.js';

const HOME = '/Users/me';
const MAC = `${HOME}/Library/Application Support`;
const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];
const EXTENSIONS: Partial<Record<HarnessId, string>> = {
  cline: 'saoudrizwan.claude-dev',
  'roo-code': 'rooveterinaryinc.roo-cline',
  kilo: 'kilocode.kilo-code',
};

describe('harness roots on macOS', () => {
  const roots = Object.fromEntries(
    Object.entries(HARNESSES).map(([id, h]) => [id, h.defaultRoots({}, HOME)]),
  ) as Record<HarnessId, string[]>;

  it("look in every editor's user dir under ~/Library/Application Support for the VS Code extensions", () => {
    for (const [id, extension] of Object.entries(EXTENSIONS)) {
      for (const editor of EDITORS)
        expect(roots[id as HarnessId], `${id} in ${editor}`).toContain(
          `${MAC}/${editor}/User/globalStorage/${extension}/tasks`,
        );
    }
  });

  it('look for Copilot Chat in the user folder of VS Code, Insiders, VSCodium and Code - OSS under ~/Library/Application Support', () => {
    const copilot = roots['copilot-vscode'].filter((r) => r.startsWith(`${HOME}/Library/`));
    expect(copilot).toEqual(['Code', 'Code - Insiders', 'VSCodium', 'Code - OSS'].map((e) => `${MAC}/${e}/User`));
  });

  it("find Zed's threads under ~/Library/Application Support/Zed", () => {
    expect(roots.zed).toContain(`${MAC}/Zed/threads`);
  });

  it("find Cursor's editor in its user dir under ~/Library/Application Support", () => {
    expect(roots.cursor).toContain(`${MAC}/Cursor`);
  });

  it("are under ~/Library for those extensions, Zed, Cursor's editor, Warp and Copilot Chat only", () => {
    const underLibrary = Object.entries(roots)
      .filter(([, rs]) => rs.some((r) => r.startsWith(`${HOME}/Library/`)))
      .map(([id]) => id);
    expect(underLibrary.sort()).toEqual([...Object.keys(EXTENSIONS), 'zed', 'cursor', 'warp', 'copilot-vscode'].sort());
    for (const [id, rs] of Object.entries(roots)) {
      if (['zed', 'cursor', 'warp', 'copilot-vscode'].includes(id)) continue;
      for (const r of rs.filter((x) => x.startsWith(`${HOME}/Library/`)))
        expect(r, id).toMatch(
          new RegExp(`^${MAC}/[^/]+/User/globalStorage/${EXTENSIONS[id as HarnessId]!.replaceAll('.', '\\.')}/tasks$`),
        );
    }
  });

  // warp_core's secure_state_dir: the app group's container, else (no app group) Application Support.
  it("find Warp's database in its app group's container, else under ~/Library/Application Support", () => {
    expect(roots.warp).toContain(
      `${HOME}/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/dev.warp.Warp-Stable`,
    );
    expect(roots.warp).toContain(`${MAC}/dev.warp.Warp-Stable`);
  });

  it("move the extensions' tasks where an editor's settings under ~/Library move them", () => {
    const home = tempDir();
    const userDir = join(home, 'Library', 'Application Support', 'Cursor', 'User');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      join(userDir, 'settings.json'),
      '{\n  // moved\n  "roo-cline.customStoragePath": "/Volumes/data/roo",\n}\n',
    );
    expect(HARNESSES['roo-code'].defaultRoots({}, home)).toContain('/Volumes/data/roo/tasks');
  });
});

describe('rootsOf', () => {
  it("takes the configured roots (resolved) over the harness's defaults, and says which", () => {
    expect(rootsOf(HARNESSES.codex, ['rel/codex'], {}, HOME)).toEqual({
      roots: [join(process.cwd(), 'rel/codex')],
      configured: true,
    });
    expect(rootsOf(HARNESSES.codex, [], { CODEX_HOME: '/c' }, HOME)).toEqual({ roots: ['/c'], configured: false });
  });
});
