/**
 * Warnings to clients in the `Warning` response header (RFC 7234 §5.5, code 299, "miscellaneous
 * persistent warning"): the request was answered, but not quite as it asked, and nothing else in
 * the answer says so (a token not recognised, answered as anonymous; parameters ignored). Each
 * warning is one value of the header; the same warning is given once.
 */
import type { ServerResponse } from 'node:http';

/** `299 - "text"`: the text as a quoted-string, outside printable ASCII replaced by `?`. */
export function warningValue(text: string): string {
  const quoted = text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&');
  return `299 - "${quoted}"`;
}

/** Adds a warning to the response, unless its headers are gone already. */
export function addWarning(res: ServerResponse, text: string): void {
  if (res.headersSent) return;
  const value = warningValue(text);
  const current = res.getHeader('Warning');
  const values = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  if (!values.includes(value)) res.setHeader('Warning', [...values, value]);
}
