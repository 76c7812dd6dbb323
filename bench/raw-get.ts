// A GET as light as a client can make it: a prepared request written on a raw socket, the
// response read whole. Node's http client costs about as much CPU per request as the exporter's
// server does: with 300 of them opened at once on the same two cores, the client was most of what
// the bench timed (136 ms at the median, against 50-85 ms here). fetch costs more still on a first
// request to a new port, as each restart's is.

import { connect } from 'node:net';

export interface RawResponse {
  /** Milliseconds from the connect until the server closed the connection. */
  ms: number;
  /** The status line, headers and body as they came (a body of chunks is left chunked). */
  text: string;
}

/** A GET on a connection of its own (the server closes it); rejects on any status but 200. */
export function rawRequest(url: string, headers: Record<string, string> = {}, keepText = true): Promise<RawResponse> {
  const { hostname, port, pathname } = new URL(url);
  const request = [
    `GET ${pathname} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => {
      if (keepText || text.length < 12) text += chunk.toString('latin1', 0, keepText ? chunk.length : 12);
    });
    socket.on('close', () =>
      text.startsWith('HTTP/1.1 200')
        ? resolve({ ms: performance.now() - t0, text })
        : reject(new Error(`${url}: ${text.slice(0, 40) || 'no answer'}`)),
    );
    socket.on('error', reject);
  });
}

/** Milliseconds of a GET whose body is read whole but not kept. */
export async function rawGet(url: string, headers: Record<string, string> = {}): Promise<number> {
  return (await rawRequest(url, headers, false)).ms;
}
