// Hook states kept in a plain map: where the spool's reader and the hook merge are tested alone,
// without a store (SessionStore.setHook, which also bounds how many are kept, is the real one).

import type { HookTarget } from '../../src/hooks/source.js';
import type { HookState } from '../../src/session/types.js';

export function hookMap(): HookTarget & { hooks: Map<string, HookState> } {
  const hooks = new Map<string, HookState>();
  return { hooks, setHook: (key, state) => void hooks.set(key, state) };
}
