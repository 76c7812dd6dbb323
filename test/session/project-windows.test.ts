// The `project` label from Windows working directories, through node:path's win32 rules (the module
// is replaced by `path.win32` for this file, as node:path is on Windows). Harnesses write the same
// folder several ways: `C:\…`, `c:\…` (VS Code), `\\?\C:\…` (Rust's canonicalize: Codex).

import { describe, expect, it, vi } from 'vitest';
import { ProjectNamer, windowsFolder } from '../../src/session/project.js';

vi.mock('node:path', async () => {
  const real = await vi.importActual<typeof import('node:path')>('node:path');
  return { ...real.win32, default: real.win32 };
});

const namer = (mode: 'name' | 'path' | 'hash') => new ProjectNamer({ mode, aliases: {}, max: 100 });
const SHOP = 'C:\\Users\\me\\src\\shop';
const SPELLINGS = [SHOP, `c:\\Users\\me\\src\\shop`, `\\\\?\\${SHOP}`, `${SHOP}\\`];

describe('project label on Windows', () => {
  it("is the folder's name however the path is spelt", () => {
    const n = namer('name');
    for (const cwd of SPELLINGS) expect(n.label(cwd), cwd).toBe('shop');
    expect(n.label('\\\\?\\UNC\\server\\share\\shop')).toBe('shop');
  });

  it('is one hash, and one path, for one folder however the path is spelt', () => {
    const hashed = namer('hash');
    const hashes = new Set(SPELLINGS.filter((s) => !s.endsWith('\\')).map((cwd) => hashed.label(cwd)));
    expect(hashes.size).toBe(1);
    expect(hashes.has(hashed.label('D:\\src\\shop'))).toBe(false);
    const path = namer('path');
    expect(path.label(`\\\\?\\${SHOP}`)).toBe(SHOP);
    expect(path.label('c:\\Users\\me\\src\\shop')).toBe(SHOP);
    expect(path.label('\\\\?\\UNC\\server\\share\\shop')).toBe('\\\\server\\share\\shop');
  });

  it('is unknown for a path that is not absolute', () => {
    expect(namer('name').label('src\\shop')).toBe('unknown');
    expect(namer('name').label('C:shop')).toBe('unknown');
  });

  it('leaves a POSIX path as it is', () => {
    for (const p of ['/home/me/shop', '/c:/x', '//?/C:/x']) expect(windowsFolder(p)).toBe(p);
  });
});
