/**
 * Text and attribute values for hand-written XML, written so that a parser reads back exactly the
 * characters given, less those XML 1.0 cannot carry at all (most C0 controls, lone surrogates,
 * U+FFFE/U+FFFF): no character reference makes them legal, and one stored in a title must not make a
 * whole harvest page unreadable, so they are dropped.
 *
 * A parser normalises line ends (CR LF and a lone CR become LF) before anything else, and in an
 * attribute value it then turns every TAB, LF and CR into a space (XML 1.0 §2.11, §3.3.3). A
 * character reference is not normalised: CR is written `&#13;` everywhere, TAB and LF `&#9;` and
 * `&#10;` in attributes.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIAL = /[&<>"'\r]/g;
const ATTRIBUTE_SPECIAL = /[&<>"'\t\n\r]/g;
const REFERENCES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** `value` less the characters XML 1.0 cannot carry. */
export const carriable = (value: string): string => value.replace(NOT_XML, '');

/** `value` as element content. */
export function escapeText(value: string): string {
  return carriable(value).replace(TEXT_SPECIAL, (c) => REFERENCES[c] as string);
}

/** `value` as an attribute value, between double or single quotes. */
export function escapeAttribute(value: string): string {
  return carriable(value).replace(ATTRIBUTE_SPECIAL, (c) => REFERENCES[c] as string);
}
