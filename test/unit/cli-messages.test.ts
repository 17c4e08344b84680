/**
 * The command-line tool, its import and export, backup and restore speak English (the README's
 * language); the REST API's French messages are the legacy contract and are not theirs. Every text
 * literal of their sources that reads as French fails here, so a new French message is caught
 * before anyone runs it; the messages the services give the tool in English (`forOperators`) are
 * checked the same way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Words of French sentences that English messages, identifiers and format keys do not use. */
const FRENCH =
  /(?<!\p{L})(inconnue?s?|aucune?|rien|déjà|ligne|ignorée?s?|avertissement|terminé|essai|réessayez|doit|être|fichier|entre|connus|remise|il faut|n’a|été|avec|pour|une?|les?|des|est|sont|reste|autres?|ici|vide|invalide|refusée?|manquante?|chaînes?|clé|plus haut|obligatoire|attendue?|hors|gardée?|inexistante?)(?!\p{L})|(?<!\p{L})(qu|[cdjlmnst])’/iu;

const files = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));

/** Text literals ('…', "…", `…`) of a source, comments left out. */
function literals(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)].map((m) => m[0]);
}

/** The demo's data set is French content, as a French-speaking school would have: not messages. */
const dataOf = (file: string, source: string) =>
  file.endsWith('demo.ts') ? source.slice(source.indexOf('export function registerDemoCommands')) : source;

describe('messages of the command-line tool and the scripts', () => {
  // src/transfer: the import and export are the tool's alone (their report is its output).
  const sources = [...files('src/cli'), ...files('src/transfer'), 'src/db/backup.ts'];

  it.each(sources)('%s says nothing in French', (file) => {
    const french = literals(dataOf(file, readFileSync(file, 'utf8'))).filter((text) => FRENCH.test(text));
    expect(french).toEqual([]);
  });

  it('the English messages services give the tool are English', () => {
    const given = files('src')
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\.forOperators\(\s*([\s\S]*?)\)\s*;/g)])
      .map((m) => m[1]!);
    expect(given.length).toBeGreaterThan(3);
    expect(given.filter((text) => FRENCH.test(text))).toEqual([]);
  });

  // The guides of the tool quote what it prints, for operators to compare with their screen.
  it.each(['docs/cli.md', 'docs/operations.md', 'docs/import-export.md'])(
    '%s quotes the tool in English',
    (file) => {
      const quoted = [...readFileSync(file, 'utf8').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
      expect(quoted.filter((text) => FRENCH.test(text))).toEqual([]);
    },
  );

  it('would catch a French message', () => {
    expect(literals("console.log('Rien à changer : la base contient déjà tout');")).toHaveLength(1);
    for (const text of ["'Rôle wizard inconnu'", '`Import terminé.`', "'l’en-tête'", "'… et 3 autres'"]) {
      expect(text).toMatch(FRENCH);
    }
    for (const text of [
      "'Nothing to change: the database holds everything the file describes.'",
      "'persons and groups'",
    ]) {
      expect(text).not.toMatch(FRENCH);
    }
  });
});
