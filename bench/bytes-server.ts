// What an answer costs Node itself: a plain Node HTTP server (its defaults, nothing else to do)
// that answers every GET with the same bytes (a body the exporter served, its headers alike), in a
// process of its own as the exporter is. What the exporter takes above it is the exporter's own;
// what both take is Node's and the machine's.

import { spawn } from 'node:child_process';

const SCRIPT = `
const body = require('node:fs').readFileSync(0);
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/** Serves `body` until stopped; resolves with its URL. */
export async function bytesServer(body: Buffer): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(body);
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (d: string) => resolve(d.trim()));
    child.once('exit', () => reject(new Error('the baseline server exited')));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}
