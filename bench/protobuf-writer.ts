// A small protobuf encoder: field numbers and values in, wire bytes out (the bench corpus and the tests write Antigravity records with it).

export function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

export const key = (field: number, wire: number) => varint(field * 8 + wire);
/** A varint field. */
export const v = (field: number, n: number) => [...key(field, 0), ...varint(n)];
/** A length-delimited field: bytes, a string or an embedded message's bytes. */
export const ld = (field: number, b: number[] | string) => {
  const body = typeof b === 'string' ? [...Buffer.from(b)] : b;
  return [...key(field, 2), ...varint(body.length), ...body];
};
export const buf = (...parts: number[][]) => Buffer.from(parts.flat());
