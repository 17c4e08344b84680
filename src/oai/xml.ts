/**
 * Text and attribute values for hand-written XML. Characters XML 1.0 cannot carry at all (most C0
 * controls, lone surrogates, U+FFFE/U+FFFF) are dropped rather than escaped: no character reference
 * makes them legal, and one stored in a title must not make a whole harvest page unreadable.
 */
const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const SPECIAL = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeXml(value: string): string {
  return value.replace(FORBIDDEN, '').replace(SPECIAL, (c) => ENTITIES[c] as string);
}
