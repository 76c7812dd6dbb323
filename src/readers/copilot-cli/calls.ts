// One model call of Copilot CLI is written twice: as a row of `session-store.db`
// (`assistant_usage_events`) and in the session's `events.jsonl` (a `session.usage_record`, or in
// CLIs that write none, the output of the `assistant.message` that answered). Neither names the
// other (the store keeps no call id), so a call is known by what it says: its session, model and
// counts, and which of the session's calls saying exactly that it is (the n-th, counted by each
// source in its own order, which is the order of the calls). Whichever source reports a call first
// counts it; the other, finding its key seen, does not. A call only one source has counts once;
// of two calls saying the same, each source's n-th is the same call.

/** The key of a whole call: session, model and its five counts as written (input cache-inclusive). */
export const callKey = (session: string, model: string, counts: readonly number[], nth: number): string =>
  `request:${session}:${model}:${counts.join(',')}#${nth}`;

/** The key of a call's output alone: what a message of the CLIs without usage records says. */
export const outputKey = (session: string, model: string, output: number, nth: number): string =>
  `output:${session}:${model}:${output}#${nth}`;

/** How many times a source said `what`, this time included (`seen` is the source's own tally). */
export function nthTime(seen: Record<string, number>, what: string): number {
  return (seen[what] = (seen[what] ?? 0) + 1);
}
