// MCP server names, for harnesses whose tool names do not say where the server's name ends
// (Gemini CLI's `mcp_<server>_<tool>`, OpenCode's `<server>_<tool>`): the names the harness is
// configured with. Only the names (the keys under the servers' key) are kept from a config file;
// nothing under them (commands, environment, headers: secrets live there) is kept or reported.

import { dirname, join } from 'node:path';
import { isDirectory, ParsedFiles, readText } from '../files/dir.js';
import { jsonValue, obj } from './fields.js';

/** The configs read, by the key their servers are under: each read again only when it changed. */
const configs = new Map<string, ParsedFiles<string[]>>();

/** The server names a JSON or JSONC config file declares under `key`; none when it is missing or broken. */
export function configuredServers(path: string, key: string): string[] {
  let files = configs.get(key);
  if (!files) {
    configs.set(
      key,
      (files = new ParsedFiles((text) => {
        const servers = obj(obj(jsonValue(withoutComments(text ?? '')))?.[key]);
        return servers ? Object.keys(servers) : [];
      })),
    );
  }
  return files.get(path);
}

/** JSONC as JSON: comments and trailing commas outside strings removed. */
export function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Folders from `dir` up to the repository root that holds it (or `dir` alone outside a repository). */
export function upToRepository(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir, i = 0; i < 32; i++) {
    out.push(d);
    if (isDirectory(join(d, '.git')) || readText(join(d, '.git')) !== undefined) return out;
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  return [dir];
}

/**
 * The server of an MCP tool named `<server><sep><tool>` (its prefix removed): the longest
 * configured server name it starts with, as the harness joins them; else the part before the
 * first separator.
 */
export function serverOf(name: string, sep: string, servers: readonly string[]): string {
  let best = '';
  for (const s of servers) if (s.length > best.length && name.startsWith(`${s}${sep}`)) best = s;
  return best || name.split(sep)[0]!;
}
