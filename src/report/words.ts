// What the `report` command line accepts, apart from the reports themselves, so that parsing a
// command line loads nothing more.

export const KINDS = ['daily', 'weekly', 'monthly', 'session', 'blocks'] as const;
export type Kind = (typeof KINDS)[number];
export const BREAKDOWNS = ['model', 'project', 'harness'] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

/** `2026-03-01` or `20260301` (ccusage's two forms) as `YYYY-MM-DD`; undefined when it is no such date. */
export function parseDay(text: string): string | undefined {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (!m) return undefined;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().startsWith(day) ? day : undefined;
}

/** Whether the runtime knows an IANA time zone of that name. */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
