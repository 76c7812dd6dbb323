// A usage-limit window as every output shows it: the exporter's gauges, the status bar, `top` and
// the page. Imports nothing, so the `statusline` command can use it and stay small.

/** A window as a harness last reported it: the share used, and when it resets (Unix seconds). */
export interface LimitWindow {
  usedRatio: number;
  resetsAt?: number;
}

/** Whether the window's reset time has passed: it started over, and what was reported of it is no longer used. */
export const isReset = (l: LimitWindow, now: number): boolean => l.resetsAt !== undefined && l.resetsAt * 1000 <= now;

/** How close a window is to its limit: below 75 % used, below 90 %, or above (the dashboards' thresholds). */
export const usedLevel = (ratio: number): 'ok' | 'near' | 'over' =>
  ratio >= 0.9 ? 'over' : ratio >= 0.75 ? 'near' : 'ok';
