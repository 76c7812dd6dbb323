// V8's heap in a process that runs all day. V8 grows the young generation (two semi-spaces, 1 MB
// each at start) up to 16 MB each while a program allocates fast, as a first read does, and
// shrinks it only when its memory reducer finds the process idle, tens of seconds later or never:
// an exporter that had read its history kept 32 MB resident for it, a third of its memory. A
// young generation kept at its first size took as much CPU for a first read of 200 MB here.

import { setFlagsFromString } from 'node:v8';

/** Keeps the young generation at its initial size from now on (the one V8 flag about it that can be set at run time). */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Whether a Node.js of this version favours memory when told to at run time: up to 22. From 24 on,
 * --optimize-for-size set at run time gives no memory back, and a process that exits after it may
 * never end: its exit waits for V8's background compiler, which waits for a collection only the
 * exiting main thread could run (one-shot `top` hung 1 run in 70 on 24 and 26, under load; never
 * in 450 without it, nor in 320 on 20 and 22 with it).
 */
export function favoursMemory(nodeVersion: string): boolean {
  return Number(nodeVersion.split('.')[0]) < 24;
}

/**
 * Once the first read is done: V8 favours memory over speed (--optimize-for-size: the heap grown by
 * as little as it can after each full collection, which compact). Set after the first read, which
 * took about a tenth more CPU under it; what follows allocates little. 1,000 live sessions: 98 MB
 * resident 15 s after start without it, 80 MB with it. Not on Node.js 24 and later (`favoursMemory`).
 */
export function favourMemory(): void {
  if (favoursMemory(process.versions.node)) setFlagsFromString('--optimize-for-size');
}

/**
 * Young-generation collections (scavenges) done by the thread that needs one, without V8's helper
 * threads. A read thread's young generation is kept small (read-threads.ts): reading 1 GB, it is
 * collected 200 times, and each time helpers were woken onto cores the read threads keep busy.
 * What is collected is a few megabytes: the thread alone takes a millisecond or two. Cold `report
 * daily` of 1 GB on two cores: 2 to 3 % less time on Node.js 20 (three batches of 12 to 20 runs,
 * alternating), 5 % on 24 (one of 16).
 * For every thread (flags are the process's), so before any is started.
 */
export function scavengeAlone(): void {
  setFlagsFromString('--no-parallel-scavenge');
}
