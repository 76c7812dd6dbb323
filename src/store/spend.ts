// Dollars spent per local calendar day, by the time of the request (not of the reading): the
// viewers' "spend today" and "this week", which a counter's rate cannot give after a restart.

/** Spend of one local calendar day (`YYYY-MM-DD`), by `harness\0project`. */
export type DaySpend = Record<string, number>;

// Days kept: today and the six before it ("this week" in the viewers).
const SPEND_DAYS = 7;
const KEY_PREFIX = 'spend:';

/** The local calendar day of a time (ms), as `YYYY-MM-DD`. */
export function localDay(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The state database's key of a day's spend (`YYYY-MM-DD`). */
export const spendKey = (day: string): string => `${KEY_PREFIX}${day}`;

export class SpendByDay {
  readonly days = new Map<string, DaySpend>();
  private readonly dirty = new Set<string>();

  /** A row of the state database's key-value table, if it is a day's spend. */
  load(key: string, value: string): void {
    if (!key.startsWith(KEY_PREFIX)) return;
    const spend = JSON.parse(value) as DaySpend | null;
    if (spend) this.days.set(key.slice(KEY_PREFIX.length), spend);
  }

  /** Adds to the spend of the day of `ts`, keeping only the last week's days. */
  add(ts: number, key: string, usd: number): void {
    if (!(usd > 0) || Date.now() - ts > SPEND_DAYS * 86_400_000) return;
    const day = localDay(ts);
    let spend = this.days.get(day);
    if (!spend) {
      this.days.set(day, (spend = {}));
      const days = [...this.days.keys()].sort();
      for (const old of days.slice(0, Math.max(0, days.length - SPEND_DAYS))) {
        this.days.delete(old);
        this.dirty.add(old);
      }
    }
    spend[key] = (spend[key] ?? 0) + usd;
    this.dirty.add(day);
  }

  /** Spend put on the day of `from` is of the day of `to` after all (more of a streamed response came). */
  move(from: number, to: number, key: string, usd: number): void {
    const day = this.days.get(localDay(from));
    if (!day || !(usd > 0) || localDay(from) === localDay(to) || day[key] === undefined) return;
    day[key] -= usd;
    this.dirty.add(localDay(from));
    this.add(to, key, usd);
  }

  /** The rows changed since the last commit; a day dropped from the week is written as null, which `load` skips. */
  changes(): { key: string; value: string }[] {
    return [...this.dirty].map((day) => ({ key: spendKey(day), value: JSON.stringify(this.days.get(day) ?? null) }));
  }

  committed(): void {
    this.dirty.clear();
  }
}
