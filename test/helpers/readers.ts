// Every harness's reader, loaded: the registry (HARNESSES) loads each only once a root of it is
// found, tests of every reader want them all.

import { HARNESSES } from '../../src/collectors/registry.js';
import type { Reader } from '../../src/readers/reader.js';
import type { HarnessId } from '../../src/session/types.js';

export const READERS = Object.fromEntries(
  await Promise.all(Object.entries(HARNESSES).map(async ([id, h]) => [id, await h.load()] as const)),
) as Record<HarnessId, Reader<unknown>>;
