// V8's optimizing compilers in a process whose work comes in bursts: a first read, a report's own
// read, a statusline. Hot functions are compiled on background threads, once in each thread that
// runs them, and again after each deoptimization, on the cores the read threads need.
// - TurboFan, with inlining, compiled a reader and all it calls into one large graph. Reading 1 GB
//   on two cores (`report daily`), that compiling took 0.7 s of the 2.9 s of CPU; without inlining
//   it takes 0.3 s, the code it makes ran as fast (the read threads' own time within 2 %), and the
//   report took 13 % less time.
// - Maglev, V8's faster-compiling tier, runs where Node.js turns it on: 24 and later (22 turned it
//   off for code it made wrong in 22's V8, nodejs/node#54384). There Maglev alone compiles: the same report took 6 to 8 % less time than with TurboFan
//   without inlining (Node.js 24 and 26), a first read the same, and a read once compiled 3 % more.

import { setFlagsFromString } from 'node:v8';

/** Node.js versions from which V8's Maglev is on. */
const MAGLEV_FROM = 24;

/**
 * V8 compiles lightly from now on: for every thread (flags are the process's), so before any is
 * started.
 */
export function compileLightly(): void {
  setFlagsFromString(
    Number(process.versions.node.split('.')[0]) >= MAGLEV_FROM ? '--no-turbofan' : '--no-turbo-inlining',
  );
}
