// What a command a harness runs (`hook`, `statusline`) reads on stdin: all of it, to its end, as a
// stream. Never with readFileSync(0): once anything touches process.stdin, Node makes a piped stdin
// non-blocking, and a synchronous read then ends at the first moment the pipe is empty (a writer
// half a second late, or a payload larger than the pipe's 64 KB), taking a part for the whole.

export interface StdinBounds {
  /** Larger input is refused (read no further). */
  maxBytes: number;
  /** Where the writer never closes stdin, the command gives up after this long rather than hang. */
  waitMs: number;
}

/** stdin's text to its end, or an error that says why not (never quoting the input). */
export function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }, bounds: StdinBounds): Promise<string> {
  // A terminal would wait for a person to type.
  if (stdin.isTTY) return Promise.reject(new Error('nothing on stdin (a terminal)'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (e?: Error) => {
      clearTimeout(timer);
      stdin.removeAllListeners();
      (stdin as NodeJS.ReadStream).destroy?.();
      if (e) reject(e);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(
      () => done(new Error(`stdin was not closed within ${bounds.waitMs / 1000} s`)),
      bounds.waitMs,
    );
    stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > bounds.maxBytes) done(new Error(`stdin is larger than ${megabytes(bounds.maxBytes)}`));
      else chunks.push(c);
    });
    stdin.on('end', () => done());
    stdin.on('error', (e: Error) => done(e));
  });
}

const megabytes = (bytes: number): string => `${Math.round(bytes / (1 << 20))} MB`;
