// Text from a harness's files (a model name, a working folder, a project, a tool's name) on its
// way to a terminal. Such a file is anyone's to write: an escape code in it would be run by the
// terminal, not shown (OSC 52 writes the clipboard, OSC 0/2 the window title, CSI moves the
// cursor and repaints what a person reads), and a bidi override reorders the rest of the line.
// Each table and screen puts its cells through `printable` where it draws them; JSON printed
// for a terminal (`--json`, the log's lines) is the same value with those characters escaped.

// C0 (with tab and newline: a cell is one line), DEL, C1 (0x9b is a one-byte CSI), and the
// characters that change the direction or break the line of what follows them.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `text` with every control, C1 and bidi character shown as U+FFFD (one column, like what it replaces). */
export function printable(text: string): string {
  return text.replace(UNSAFE, '\ufffd');
}

// What JSON.stringify leaves as it is (it escapes C0 alone). Outside a string JSON is ASCII, so
// each is in a string, where its \uXXXX escape is the same character to any JSON reader.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `value` as JSON (indented by `indent`; 0: one line) with no character a terminal would act on. */
export function printableJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
