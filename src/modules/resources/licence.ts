/**
 * A resource's licence: an SPDX licence expression, as npm checks a package's `license`
 * (`CC-BY-SA-4.0`, `CC-BY-4.0 OR MIT`, `LicenseRef-…`), or the http(s) URL of a licence. SPDX
 * identifiers match whatever their case (the SPDX specification, annex D): `cc-by-sa-4.0` is stored
 * as `CC-BY-SA-4.0`, so that a list filtered on one finds the other.
 */
import { createRequire } from 'node:module';
import parseSpdx from 'spdx-expression-parse';

const require = createRequire(import.meta.url);
const canonical = new Map<string, string>(
  [
    ...(require('spdx-license-ids') as string[]),
    ...(require('spdx-license-ids/deprecated.json') as string[]),
    ...(require('spdx-exceptions') as string[]),
  ].map((id) => [id.toLowerCase(), id]),
);

/** At most this many characters: the column is indexed (lists filter on it). */
export const LICENCE_MAX_LENGTH = 255;

export const LICENCE_PROBLEM =
  'doit être une expression de licence SPDX (CC-BY-SA-4.0) ou l’URL http(s) d’une licence';

/** The licence as stored (SPDX identifiers in their canonical case), or undefined when it is none. */
export function normalisedLicence(value: string): string | undefined {
  if (/^https?:\/\//i.test(value)) return URL.canParse(value) ? value : undefined;
  // Identifiers are the words that are not operators; `+` (or later) stays attached to its identifier.
  const expression = value.replace(/[A-Za-z0-9.-]+/g, (word) =>
    /^(AND|OR|WITH)$/i.test(word) ? word.toUpperCase() : (canonical.get(word.toLowerCase()) ?? word),
  );
  try {
    parseSpdx(expression);
    return expression;
  } catch {
    return undefined;
  }
}
