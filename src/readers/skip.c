// The scanner's (scan.ts) passing over a JSON value it was not asked for, in WebAssembly: most of a
// session record's bytes are strings nobody reads (file contents, command output), and here they are
// searched 16 bytes at a time for their closing quote. It does exactly what scan.ts's valueEnd,
// stringEnd and literalEnd do (test/readers/skip.test.ts compares them on every value it makes),
// on a line the reader's buffer (lines.ts) holds in this module's memory.
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
