// In-process OTLP receivers for tests: OTLP/HTTP (protobuf or JSON, optionally gzip, optionally
// TLS) and OTLP/gRPC (HTTP/2 with 5-byte length-prefixed messages and a grpc-status trailer).
// Every push is decoded into the same shape, enough to assert names, values and attributes.

import { createServer as createHttp, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2 } from 'node:http2';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** `start`: the point's start time, in nanoseconds since the epoch. */
export interface Point {
  attributes: Record<string, string>;
  value: number;
  start: string;
}
export interface Metric {
  name: string;
  unit: string;
  kind: 'sum' | 'gauge' | 'histogram';
  temporality?: number;
  points: Point[];
}
export interface Push {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  resource: Record<string, string>;
  metrics: Metric[];
}

export interface Receiver {
  url: string;
  pushes: Push[];
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver that can be told to refuse pushes for a while (as one that is down) or to answer late. */
export interface HttpReceiver extends Receiver {
  /** Pushes still to be answered 500, an error the exporter does not retry (not kept in `pushes`); counts down with each. */
  refuseNext: number;
  /** Pushes answered 500 so far. */
  refused: number;
  /** Pushes whose answer waits for `release()`, as from a receiver slow to answer; counts down with each. */
  holdNext: number;
  /** Answers the pushes held. */
  release(): void;
  /** Pushes received, answered or not. */
  received: number;
}

// --- OTLP/JSON ---------------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OTLP/JSON bodies, walked by the tests that check them
type Json = Record<string, any>;

const jsonAttrs = (kvs: Json[] = []) =>
  Object.fromEntries(kvs.map((kv) => [kv.key, String(Object.values(kv.value ?? {})[0])]));

function fromJson(body: Json): Pick<Push, 'resource' | 'metrics'> {
  const rm = body.resourceMetrics[0] as Json;
  const metrics = (rm.scopeMetrics as Json[])
    .flatMap((sm) => sm.metrics as Json[])
    .map((m): Metric => {
      const kind = m.sum ? 'sum' : m.gauge ? 'gauge' : 'histogram';
      const data = m[kind] as Json;
      return {
        name: m.name,
        unit: m.unit ?? '',
        kind,
        temporality: data.aggregationTemporality,
        points: (data.dataPoints as Json[]).map((p) => ({
          attributes: jsonAttrs(p.attributes),
          value: Number(p.asDouble ?? p.asInt ?? p.sum),
          start: String(p.startTimeUnixNano ?? 0),
        })),
      };
    });
  return { resource: jsonAttrs(rm.resource?.attributes), metrics };
}

// --- OTLP/protobuf: just enough of the wire format -----------------------------------------------

type Field = Buffer | bigint;

/** A message's fields by number; length-delimited fields are Buffers, the rest raw integers. */
function fields(buf: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const [no, wire] = [key >>> 3, key & 7];
    let value: Field;
    if (wire === 0) value = varint();
    else if (wire === 1) value = buf.subarray(i, (i += 8));
    else if (wire === 5) value = buf.subarray(i, (i += 4));
    else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, (i += len));
    } else throw new Error(`unsupported wire type ${wire}`);
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

const msgs = (f: Map<number, Field[]>, no: number) => (f.get(no) ?? []) as Buffer[];
const str = (f: Map<number, Field[]>, no: number) => msgs(f, no)[0]?.toString('utf8') ?? '';

function protoAttrs(kvs: Buffer[]): Record<string, string> {
  return Object.fromEntries(
    kvs.map((kv) => {
      const f = fields(kv);
      const any = fields(msgs(f, 2)[0] ?? Buffer.alloc(0));
      return [str(f, 1), str(any, 1)];
    }),
  );
}

function fromProtobuf(body: Buffer): Pick<Push, 'resource' | 'metrics'> {
  const rm = fields(msgs(fields(body), 1)[0]!);
  const resource = protoAttrs(msgs(fields(msgs(rm, 1)[0] ?? Buffer.alloc(0)), 1));
  const metrics = msgs(rm, 2)
    .flatMap((sm) => msgs(fields(sm), 2))
    .map((mb): Metric => {
      const m = fields(mb);
      // Metric: 5 gauge, 7 sum, 9 histogram; NumberDataPoint: 4 as_double, 6 as_int; HistogramDataPoint: 5 sum.
      const [kind, no] = m.has(7)
        ? (['sum', 7] as const)
        : m.has(5)
          ? (['gauge', 5] as const)
          : (['histogram', 9] as const);
      const data = fields(msgs(m, no)[0]!);
      const points = msgs(data, 1).map((pb): Point => {
        const p = fields(pb);
        const double = msgs(p, kind === 'histogram' ? 5 : 4)[0];
        const int = msgs(p, 6)[0];
        const value = double ? double.readDoubleLE(0) : int ? Number(int.readBigInt64LE(0)) : 0;
        // Both data points: 2 start_time_unix_nano (fixed64).
        const start = msgs(p, 2)[0]?.readBigUInt64LE(0).toString() ?? '0';
        return { attributes: protoAttrs(msgs(p, kind === 'histogram' ? 9 : 7)), value, start };
      });
      const temporality = data.get(2)?.[0];
      return {
        name: str(m, 1),
        unit: str(m, 3),
        kind,
        temporality: temporality === undefined ? undefined : Number(temporality),
        points,
      };
    });
  return { resource, metrics };
}

// --- Servers -------------------------------------------------------------------------------------

function decodeHttp(req: IncomingMessage, body: Buffer): Push {
  const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  const decoded = String(req.headers['content-type']).includes('json')
    ? fromJson(JSON.parse(raw.toString()) as Json)
    : fromProtobuf(raw);
  return { path: req.url ?? '', headers: req.headers, ...decoded };
}

/** OTLP/HTTP on loopback; with `tls` ({key, cert}) it is HTTPS. */
export async function httpReceiver(tls?: { key: string; cert: string }): Promise<HttpReceiver> {
  const pushes: Push[] = [];
  const held: (() => void)[] = [];
  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (receiver.refuseNext > 0) {
      receiver.refuseNext--;
      receiver.refused++;
      res.writeHead(500).end();
      return;
    }
    pushes.push(decodeHttp(req, body));
    res
      .writeHead(200, { 'content-type': String(req.headers['content-type']) })
      .end(String(req.headers['content-type']).includes('json') ? '{}' : '');
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received++;
      if (receiver.holdNext > 0) {
        receiver.holdNext--;
        held.push(() => answer(req, res, Buffer.concat(chunks)));
      } else answer(req, res, Buffer.concat(chunks));
    });
  };
  const server = tls ? createHttps(tls, handler) : createHttp(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const receiver: HttpReceiver = {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    pushes,
    refuseNext: 0,
    refused: 0,
    holdNext: 0,
    release: () => held.splice(0).forEach((a) => a()),
    received: 0,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return receiver;
}

/** OTLP/gRPC over cleartext HTTP/2 on loopback. */
export async function grpcReceiver(): Promise<Receiver> {
  const pushes: Push[] = [];
  const server = createHttp2();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const body = Buffer.concat(chunks);
      // One length-prefixed message: compressed flag, 4-byte big-endian length, payload.
      const payload = body.subarray(5, 5 + body.readUInt32BE(1));
      const message = body[0] === 1 ? gunzipSync(payload) : payload;
      pushes.push({ path: String(headers[':path']), headers, ...fromProtobuf(message) });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.alloc(5)); // an empty ExportMetricsServiceResponse
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (s) => sessions.add(s));
  return {
    url: `http://127.0.0.1:${port}`,
    pushes,
    close: () =>
      new Promise((r) => {
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Polls until `receiver` has `count` pushes (or `ms` passed) and returns them. */
export async function pushesOf(receiver: Receiver, count: number, ms = 15_000): Promise<Push[]> {
  const end = Date.now() + ms;
  while (receiver.pushes.length < count && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return receiver.pushes;
}
