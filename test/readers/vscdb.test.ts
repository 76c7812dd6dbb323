// The key-value helper for VS Code-style state.vscdb files: keys by range (the unique index), rows
// changed since a rowid, values as TEXT or BLOB, and JSON with raw control characters.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDatabase } from '../../src/readers/sqlite.js';
import {
  hasTable,
  keyAt,
  keyRange,
  keysAfter,
  keysWithPrefix,
  keyValue,
  prefixed,
  topRow,
  valueObject,
} from '../../src/readers/vscdb.js';
import { Database } from '../helpers/sqlite.js';
import { tempDir } from '../helpers/run.js';

function store() {
  const path = join(tempDir(), 'state.vscdb');
  const db = new Database(path);
  db.exec(
    'CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)',
  );
  const put = db.prepare('INSERT INTO cursorDiskKV VALUES (?, ?)');
  put.run('bubbleId:a:1', '{"n":1}');
  put.run('bubbleId:a:2', Buffer.from('{"n":2}'));
  put.run('bubbleId:ab:3', '{"n":3}');
  put.run('composerData:a', '{"n":4}');
  db.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('cursorAuth/accessToken', 'secret');
  return { path, db };
}

describe('vscdb', () => {
  it('reads the keys of a prefix by range, with their values as TEXT or BLOB', () => {
    const { path } = store();
    readDatabase(path, (db) => {
      expect([...prefixed(db, 'cursorDiskKV', 'bubbleId:a:')].map((r) => [r.key, valueObject(r.value)])).toEqual([
        ['bubbleId:a:1', { n: 1 }],
        ['bubbleId:a:2', { n: 2 }],
      ]);
      expect([...keysWithPrefix(db, 'cursorDiskKV', 'composerData:')]).toEqual(['composerData:a']);
      expect(keyValue(db, 'cursorDiskKV', 'bubbleId:ab:3')).toEqual({ n: 3 });
      expect(keyValue(db, 'cursorDiskKV', 'missing')).toBeUndefined();
      expect([hasTable(db, 'cursorDiskKV'), hasTable(db, 'composerHeaders')]).toEqual([true, false]);
    });
    expect(keyRange('composerData:')).toEqual(['composerData:', 'composerData;']);
  });

  it('finds the rows rewritten since a read: a replaced row takes a rowid above the rest', () => {
    const { path, db } = store();
    const top = readDatabase(path, (r) => topRow(r, 'cursorDiskKV'));
    expect(top).toEqual({ rowid: 4, key: 'composerData:a' });
    db.prepare('INSERT INTO cursorDiskKV VALUES (?, ?)').run('bubbleId:a:1', '{"n":5}');
    readDatabase(path, (r) => {
      expect([...keysAfter(r, 'cursorDiskKV', top.rowid)]).toEqual(['bubbleId:a:1']);
      expect([...prefixed(r, 'cursorDiskKV', 'bubbleId:a:', top.rowid)].map((x) => x.key)).toEqual(['bubbleId:a:1']);
      expect(keyAt(r, 'cursorDiskKV', 1)).toBeUndefined();
    });
  });

  it('parses JSON holding raw control characters in its strings, and nothing that is no object', () => {
    expect(valueObject('{"text":"a\u0001b\nc"}')).toEqual({ text: 'a b c' });
    expect(valueObject(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))).toEqual({ a: '\ufffd' });
    for (const bad of ['[1]', 'null', '{"a":', 7, null]) expect(valueObject(bad)).toBeUndefined();
  });
});
