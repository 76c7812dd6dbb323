// Sessions that continue another (a subagent under the session that started it, a compaction's
// continuation) report under the first session of their chain.

/**
 * The root session of each session, following `parentOf` (undefined: no parent) at most 16 links:
 * damaged rows that form a cycle end there. Memoized for one read.
 */
export function rootFinder(parentOf: (id: string) => string | undefined): (id: string) => string {
  const memo = new Map<string, string>();
  return (id) => {
    let root = memo.get(id);
    if (root !== undefined) return root;
    root = id;
    for (let depth = 0, p = parentOf(id); p && depth < 16; depth++, p = parentOf(p)) root = p;
    memo.set(id, root);
    return root;
  };
}
