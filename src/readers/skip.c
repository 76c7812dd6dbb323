// The scanner (scan.ts) in WebAssembly: a session record's members a reader asks for, found in
// one pass over the line where the reader's buffer (lines.ts) holds it. Most of a record's bytes
// are strings nobody reads (file contents, command output): they are searched 64 bytes at a time
// for their closing quote. It does exactly what scan.ts's scanRecord, valueEnd, stringEnd and
// literalEnd do (test/readers/skip.test.ts compares them on random bytes, random JSON and the real
// CLIs' lines).
//
// Built by scripts/build-skip.sh (clang, wasm32, SIMD) into src/readers/skip-wasm.ts, which is
// committed: building the exporter needs no C compiler.

#include <stdint.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef int32_t i32;

// The byte at j, or 256 past the line's end (where scan.ts reads `undefined`).
static inline i32 at(const u8 *b, i32 j, i32 len) { return j < len ? b[j] : 256; }

static inline int digit(i32 c) { return c >= '0' && c <= '9'; }

// The bytes of the 64 at p equal to c, as bits.
static inline uint64_t bits(const u8 *p, u8 c) {
  const v128_t cs = wasm_i8x16_splat(c);
  uint64_t m = 0;
  for (int k = 0; k < 4; k++) m |= (uint64_t)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(p + 16 * k), cs)) << 16 * k;
  return m;
}

static const uint64_t ODD = 0xAAAAAAAAAAAAAAAAull;

// The end (after the closing quote) of the string whose opening quote is at i; -1 if cut. A
// quote ends the string unless an odd run of backslashes stands before it. Text holds escapes
// every few dozen bytes (code, JSON held as text), so 64 bytes are taken at a time, without a
// branch per escape: the bytes escaped are found with arithmetic on the backslashes' bits.
static i32 string_end(const u8 *b, i32 i, i32 len) {
  i32 j = i + 1;
  uint64_t carried = 0; // 1 when the block's first byte is escaped by the last one before it
  for (; j + 64 <= len; j += 64) {
    uint64_t backslashes = bits(b + j, '\\');
    uint64_t quotes = bits(b + j, '"');
    // A run of backslashes escapes the byte after it when it is odd. A run starting on an even
    // bit, once subtracted from the odd bits, leaves its even bits set; on an odd bit, its odd
    // ones: xor the odd bits back and the bit after each run is set where its length is odd.
    uint64_t starting = backslashes & ~carried;
    uint64_t codes = (((starting << 1) | ODD) - starting) ^ ODD;
    uint64_t escaped = codes ^ (backslashes | carried);
    carried = (codes & backslashes) >> 63;
    uint64_t ends = quotes & ~escaped;
    if (ends) return j + __builtin_ctzll(ends) + 1;
  }
  j += carried;
  while (j < len) {
    if (b[j] == '"') return j + 1;
    j += b[j] == '\\' ? 2 : 1;
  }
  return -1;
}

static const char TRUE[] = "true", FALSE[] = "false", NUL[] = "null";

// The end of a number or a literal at i, as JSON writes them, followed by a delimiter or the end;
// -1 for anything else.
static i32 literal_end(const u8 *b, i32 i, i32 len) {
  i32 j = i;
  i32 c = at(b, i, len);
  const char *literal = c == 't' ? TRUE : c == 'f' ? FALSE : c == 'n' ? NUL : 0;
  if (literal) {
    for (; *literal; literal++, j++)
      if (at(b, j, len) != *literal) return -1;
  } else {
    if (at(b, j, len) == '-') j++;
    if (at(b, j, len) == '0') j++;
    else if (digit(at(b, j, len)))
      while (digit(at(b, j, len))) j++;
    else
      return -1;
    if (at(b, j, len) == '.') {
      if (!digit(at(b, ++j, len))) return -1;
      while (digit(at(b, j, len))) j++;
    }
    if (at(b, j, len) == 'e' || at(b, j, len) == 'E') {
      if (at(b, j + 1, len) == '+' || at(b, j + 1, len) == '-') j++;
      if (!digit(at(b, ++j, len))) return -1;
      while (digit(at(b, j, len))) j++;
    }
  }
  i32 d = at(b, j, len);
  return d == 256 || d == ',' || d == '}' || d == ']' || d == ' ' || d == '\n' || d == '\r' || d == '\t' ? j : -1;
}

// The end of the value at i of the line at b (len bytes long): only its balance is checked, and
// that its numbers and literals are JSON's; -1 if malformed.
__attribute__((export_name("valueEnd"))) i32 value_end(const u8 *b, i32 i, i32 len) {
  i32 c = at(b, i, len);
  if (c == '"') return string_end(b, i, len);
  if (c != '{' && c != '[') return literal_end(b, i, len);
  i32 depth = 0;
  for (i32 j = i; j < len; j++) {
    i32 d = b[j];
    if (d == '"') {
      j = string_end(b, j, len) - 1;
      if (j < 0) return -1;
    } else if (d == '{' || d == '[') {
      depth++;
    } else if (d == '}' || d == ']') {
      if (--depth == 0) return j + 1;
    } else if (d == '-' || digit(d) || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z')) {
      j = literal_end(b, j, len) - 1;
      if (j < 0) return -1;
    }
  }
  return -1;
}

// --- A whole record: the members a shape asks for (scan.ts's scanRecord, in C) ---
//
// A shape is written in this module's memory by skip.ts: its number of keys, then for each key
// the length and place of its bytes and the shape of its value where the value is read as an object
// (or array of them), else 0. What is found is written as records of five numbers, in the order
// scan.ts would find them: the object the member belongs to (0 the line's; objects and arrays are
// numbered as they are met), the key's index in that object's shape, the value's start and end,
// and the object or array the value is read as (-1: read as is). An object in an array asked for
// is a record of its own, its key -1, the array in place of the object.

typedef struct {
  i32 length, bytes, shape;
} Key;

typedef struct {
  i32 count;
  Key keys[];
} Shape;

typedef struct {
  i32 *records;
  i32 count, room, objects, arrays, full;
} Found;

static inline int space(i32 c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static inline i32 skip_space(const u8 *b, i32 i, i32 len) {
  while (i < len && space(b[i])) i++;
  return i;
}

// The index of the key written at [start, end) of b in shape, or -1 when it is not asked for.
static i32 find(const Shape *shape, const u8 *b, i32 start, i32 end) {
  for (i32 k = 0; k < shape->count; k++) {
    const Key *key = &shape->keys[k];
    if (key->length != end - start) continue;
    const u8 *bytes = (const u8 *)key->bytes;
    i32 j = 0;
    while (j < key->length && bytes[j] == b[start + j]) j++;
    if (j == key->length) return k;
  }
  return -1;
}

// A record written, its end left for later (-1): the place of the record, or -1 when there is no
// room (the line is then read by scan.ts).
static i32 record(Found *f, i32 owner, i32 key, i32 start, i32 end, i32 read_as) {
  if (f->count == f->room) {
    f->full = 1;
    return -1;
  }
  i32 *r = f->records + 5 * f->count;
  r[0] = owner;
  r[1] = key;
  r[2] = start;
  r[3] = end;
  r[4] = read_as;
  return f->count++;
}

static i32 scan_object(const u8 *b, i32 i, i32 len, const Shape *shape, i32 self, Found *f);

// A member asked for, read (into its object or array when its shape says so) and recorded; its end.
static i32 wanted(const u8 *b, i32 start, i32 len, const Key *key, i32 k, i32 self, Found *f) {
  i32 c = at(b, start, len);
  if (!key->shape || (c != '{' && c != '[')) {
    i32 end = value_end(b, start, len);
    if (end != -1 && record(f, self, k, start, end, -1) == -1) return -1;
    return end;
  }
  const Shape *inner = (const Shape *)key->shape;
  if (c == '{') {
    i32 object = f->objects++;
    i32 r = record(f, self, k, start, -1, object);
    if (r == -1) return -1;
    i32 end = scan_object(b, start, len, inner, object, f);
    f->records[5 * r + 3] = end;
    return end;
  }
  i32 array = f->arrays++;
  i32 r = record(f, self, k, start, -1, array);
  if (r == -1) return -1;
  i32 i = skip_space(b, start + 1, len);
  if (at(b, i, len) != ']') {
    for (;;) {
      i32 end;
      if (at(b, i, len) == '{') {
        i32 object = f->objects++;
        i32 item = record(f, array, -1, i, -1, object);
        if (item == -1) return -1;
        end = scan_object(b, i, len, inner, object, f);
        f->records[5 * item + 3] = end;
      } else {
        end = value_end(b, i, len);
      }
      if (end == -1) return -1;
      i = skip_space(b, end, len);
      if (at(b, i, len) == ',') i = skip_space(b, i + 1, len);
      else if (at(b, i, len) == ']') break;
      else return -1;
    }
  }
  f->records[5 * r + 3] = i + 1;
  return i + 1;
}

// Reads the object at i, its members into object `self`; its end, or -1 if malformed.
static i32 scan_object(const u8 *b, i32 i, i32 len, const Shape *shape, i32 self, Found *f) {
  if (at(b, i, len) != '{') return -1;
  i = skip_space(b, i + 1, len);
  if (at(b, i, len) == '}') return i + 1;
  for (;;) {
    if (at(b, i, len) != '"') return -1;
    i32 key_end = string_end(b, i, len);
    if (key_end == -1) return -1;
    i32 k = find(shape, b, i + 1, key_end - 1);
    i = skip_space(b, key_end, len);
    if (at(b, i, len) != ':') return -1;
    i32 start = skip_space(b, i + 1, len);
    i32 end = k == -1 ? value_end(b, start, len) : wanted(b, start, len, &shape->keys[k], k, self, f);
    if (end == -1) return -1;
    i = skip_space(b, end, len);
    if (at(b, i, len) == ',') i = skip_space(b, i + 1, len);
    else return at(b, i, len) == '}' ? i + 1 : -1;
  }
}

// The line at b (len bytes) read with shape: the number of records written to `records` (room for
// `room`), -1 when the line is not one well-formed JSON object (whitespace around it allowed), -2
// when the records would not fit.
__attribute__((export_name("scanRecord"))) i32 scan_record(const u8 *b, i32 len, const Shape *shape, i32 *records,
                                                            i32 room) {
  Found f = {records, 0, room, 1, 0, 0};
  i32 end = scan_object(b, skip_space(b, 0, len), len, shape, 0, &f);
  if (f.full) return -2;
  return end != -1 && skip_space(b, end, len) == len ? f.count : -1;
}
