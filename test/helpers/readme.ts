// The command lines the README shows: every `coding-agent-exporter …` of its code blocks and of its
// command table, as arguments (`[a|b]` taken as `a`, the placeholders given a value).

/** Each shown command's arguments, with the placeholders `HARNESS`, `URL` and `T` filled in. */
export function readmeCommands(readme: string, url = 'http://127.0.0.1:10477'): string[][] {
  // The lines of its shell and plain code blocks (fences followed line by line: a json block's end is no start).
  const blocks: string[] = [];
  let fence: string | undefined;
  for (const line of readme.split('\n')) {
    if (line.startsWith('```')) fence = fence === undefined ? line.slice(3).trim() : undefined;
    else if (fence === 'sh' || fence === '') blocks.push(line);
  }
  const table = [...readme.matchAll(/^\| `(coding-agent-exporter[^`]*)`/gm)].map((m) => m[1]!);
  return [...blocks, ...table]
    .map((l) => /(?:^|\$ )(coding-agent-exporter(?: [^#\n]*)?)/.exec(l)?.[1]?.trim())
    .filter((c): c is string => c !== undefined)
    .map((c) =>
      c
        .replace(/\[([^\]|\\]+)(\\?\|[^\]]*)?\]/g, '$1')
        .replace(/\bHARNESS\b/, 'claude-code')
        .replace(/\bURL\b/, url)
        .replace(/ T\b/, ' {model}'),
    )
    .map((c) => c.split(/\s+/).slice(1));
}
