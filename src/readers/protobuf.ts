// A minimal protobuf wire-format decoder: enough to pick a few known fields out of a message
// without its schema (Antigravity CLI stores its steps as protobuf). No dependency: the few
// fields a reader needs are read by number, everything else is skipped by its wire type.
// Decoding never throws: a message that does not parse is `undefined`.

/** The fields of one message by number, each with every value it was given (repeated fields). */
export type Message = Map<number, Value[]>;
/** A varint or fixed64 as a bigint-free number (exact below 2^53), or the bytes of a length-delimited field. */
export type Value = number | Buffer;

/** Reads a varint at `pos`; undefined when it runs past the end or over 10 bytes. */
function varint(buf: Buffer, pos: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos + i >= buf.length) return undefined;
    const b = buf[pos + i]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) return { value, next: pos + i + 1 };
  }
  return undefined;
}

/** The fields of a message, or undefined when its bytes are not a well-formed message. */
export function decode(buf: Buffer): Message | undefined {
  const out: Message = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const key = varint(buf, pos);
    if (!key) return undefined;
    pos = key.next;
    const field = Math.floor(key.value / 8);
    const wire = key.value % 8;
    if (field === 0) return undefined;
    let value: Value;
    switch (wire) {
      case 0: {
        const v = varint(buf, pos);
        if (!v) return undefined;
        value = v.value;
        pos = v.next;
        break;
      }
      case 1:
        if (pos + 8 > buf.length) return undefined;
        value = buf.readUInt32LE(pos) + buf.readUInt32LE(pos + 4) * 2 ** 32;
        pos += 8;
        break;
      case 2: {
        const len = varint(buf, pos);
        if (!len || len.next + len.value > buf.length) return undefined;
        value = buf.subarray(len.next, len.next + len.value);
        pos = len.next + len.value;
        break;
      }
      case 5:
        if (pos + 4 > buf.length) return undefined;
        value = buf.readUInt32LE(pos);
        pos += 4;
        break;
      default:
        // Groups (3, 4) are long deprecated; 6 and 7 do not exist.
        return undefined;
    }
    const values = out.get(field);
    if (values) values.push(value);
    else out.set(field, [value]);
  }
  return out;
}

/** The last value of a varint field (protobuf: the last one wins), 0 when absent. */
export function uint(m: Message | undefined, field: number): number {
  const v = m?.get(field)?.at(-1);
  return typeof v === 'number' ? v : 0;
}

/** The bytes of a length-delimited field (its last value), or undefined. */
export function bytes(m: Message | undefined, field: number): Buffer | undefined {
  const v = m?.get(field)?.at(-1);
  return Buffer.isBuffer(v) ? v : undefined;
}

/** A string field, or undefined. */
export function text(m: Message | undefined, field: number): string | undefined {
  return bytes(m, field)?.toString('utf8');
}

/** An embedded message field, or undefined when absent or malformed (decoded when asked for: no recursion). */
export function message(m: Message | undefined, field: number): Message | undefined {
  const b = bytes(m, field);
  return b ? decode(b) : undefined;
}

/** Every value of a repeated embedded message field that decodes. */
export function messages(m: Message | undefined, field: number): Message[] {
  const out: Message[] = [];
  for (const v of m?.get(field) ?? []) {
    const d = Buffer.isBuffer(v) ? decode(v) : undefined;
    if (d) out.push(d);
  }
  return out;
}

/** A repeated varint field, packed (one length-delimited run) or not. */
export function uints(m: Message | undefined, field: number): number[] {
  const out: number[] = [];
  for (const v of m?.get(field) ?? []) {
    if (typeof v === 'number') {
      out.push(v);
      continue;
    }
    for (let pos = 0; pos < v.length;) {
      const r = varint(v, pos);
      if (!r) return out;
      out.push(r.value);
      pos = r.next;
    }
  }
  return out;
}
