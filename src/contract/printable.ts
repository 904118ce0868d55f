/**
 * One log line stays one line: text from outside (a callback body, a vendor answer) is
 * escaped before it is logged or shown. Workflow-safe; the callback receiver uses it too.
 */

/** Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the backslash. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/** `text` with every unsafe character escaped (\n, \r, \t, \\, \u00XX), cut to `max` characters. */
export function printable(text: string, max = 200): string {
  const escaped = text.replace(UNSAFE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}
