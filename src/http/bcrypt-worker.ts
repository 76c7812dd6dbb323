// The thread that compares passwords with bcrypt hashes (basic-auth.ts): bcrypt is slow on
// purpose, and on the main thread every wrong password would hold up every scrape.

import bcrypt from 'bcryptjs';
import { parentPort } from 'node:worker_threads';

export interface Compare {
  id: number;
  password: string;
  hash: string;
}

export interface Compared {
  id: number;
  ok: boolean;
}

parentPort!.on('message', ({ id, password, hash }: Compare) => {
  parentPort!.postMessage({ id, ok: bcrypt.compareSync(password, hash) } satisfies Compared);
});
