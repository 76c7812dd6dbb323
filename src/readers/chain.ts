// Sessions that continue another (a subagent under the session that started it, a compaction's
// continuation) report under the first session of their chain.

import type { SessionEvents } from '../session/events.js';

/** How a session continues its parent: `subagent` when it is one the parent delegated to. */
export interface Link {
  parent: string;
  subagent: boolean;
}

/**
 * The root of each session's chain, following `linkOf` at most `maxLinks` links (damaged rows
 * that form a cycle end there), and whether a subagent's link was crossed on the way. Memoized
 * for one read.
 */
export function chainFinder(
  linkOf: (id: string) => Link | undefined,
  maxLinks = 16,
): (id: string) => { root: string; child: boolean } {
  const memo = new Map<string, { root: string; child: boolean }>();
  return (id) => {
    let chain = memo.get(id);
    if (chain) return chain;
    chain = { root: id, child: false };
    for (let depth = 0, l = linkOf(id); l && depth < maxLinks; depth++, l = linkOf(l.parent)) {
      chain.root = l.parent;
      chain.child ||= l.subagent;
    }
    memo.set(id, chain);
    return chain;
  };
}

/** The root session of each session, following `parentOf` (undefined: no parent). */
export function rootFinder(parentOf: (id: string) => string | undefined): (id: string) => string {
  const chainOf = chainFinder((id) => {
    const parent = parentOf(id);
    return parent ? { parent, subagent: true } : undefined;
  });
  return (id) => chainOf(id).root;
}

/** Where a session's records are reported: its chain's root, and whether it is a subagent's. */
export interface Target {
  root: string;
  events: SessionEvents;
  child: boolean;
}

/**
 * The target of each session, memoized for one read. The root's folder (`cwdOf`) is told to its
 * events before anything else: it names the project its counters go to.
 */
export function targetFinder(
  chainOf: (id: string) => { root: string; child: boolean },
  eventsOf: (id: string) => SessionEvents,
  cwdOf: (root: string) => string | undefined,
): (id: string) => Target {
  const targets = new Map<string, Target>();
  return (id) => {
    let t = targets.get(id);
    if (t) return t;
    const { root, child } = chainOf(id);
    t = { root, events: eventsOf(root), child };
    const cwd = cwdOf(root);
    if (cwd) t.events.meta({ cwd });
    targets.set(id, t);
    return t;
  };
}
