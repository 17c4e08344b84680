/**
 * Warnings to clients in the `Warning` response header (RFC 7234 §5.5, code 299, "miscellaneous
 * persistent warning"): the request was answered, but not quite as it asked, and nothing else in
 * the answer says so (a token not recognised, answered as anonymous; input the legacy contract
 * ignores or replaces by its default). Each warning is one value of the header, in English; the
 * same warning is given once.
 */
import type { ServerResponse } from 'node:http';

/** Longest text sent: a warning may quote what the client sent, which has no bound of its own. */
const MAX_TEXT = 300;

/**
 * `299 - "text"`: the text as a quoted-string, printable ASCII only (anything else, such as control
 * characters or letters beyond ASCII the client sent, becomes `?`), quotes escaped, bounded.
 */
export function warningValue(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  const bounded = printable.length > MAX_TEXT ? `${printable.slice(0, MAX_TEXT)}...` : printable;
  return `299 - "${bounded.replace(/["\\]/g, '\\$&')}"`;
}

/** Adds a warning to the response, unless its headers are gone already. */
export function addWarning(res: ServerResponse, text: string): void {
  if (res.headersSent) return;
  const value = warningValue(text);
  const current = res.getHeader('Warning');
  const values = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  if (!values.includes(value)) res.setHeader('Warning', [...values, value]);
}
