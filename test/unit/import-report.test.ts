/**
 * The report an import run fills (src/transfer/import-report.ts): counts per kind, problems
 * in file order, persons counted once their memberships are known, and one-line messages.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { type ImportProgress, messageOf, RunReport } from '../../src/transfer/import-report.ts';

describe('RunReport', () => {
  it('counts a skipped record for its kind, not a line that is no record, and keeps both in file order', () => {
    const report = new RunReport();
    report.skip(30, 'resource', '7', 'titre : obligatoire');
    report.skip(4, 'line', undefined, 'JSON invalide');
    report.skip(2, 'person', undefined, 'pid : obligatoire');
    report.skip(4, 'group', 'G', 'nom déjà présent plus haut dans le fichier');
    report.warn(9, 'resource', '3', 'b');
    report.warn(1, 'person', 'a/1', 'a');
    report.counts.resource.created += 2;
    const final = report.finish(false, 12.6);
    expect(final.skipped).toEqual([
      { line: 2, kind: 'person', message: 'pid : obligatoire' },
      { line: 4, kind: 'line', message: 'JSON invalide' },
      { line: 4, kind: 'group', id: 'G', message: 'nom déjà présent plus haut dans le fichier' },
      { line: 30, kind: 'resource', id: '7', message: 'titre : obligatoire' },
    ]);
    expect(final.warnings.map((w) => w.message)).toEqual(['a', 'b']);
    expect(final.resources).toEqual({ created: 2, updated: 0, unchanged: 0, skipped: 1 });
    expect(final.persons.skipped).toBe(1);
    expect(final.groups.skipped).toBe(1);
    expect(final.durationMs).toBe(13);
    expect(final.dryRun).toBe(false);
  });

  it('counts persons by their last outcome, at the end', () => {
    const report = new RunReport();
    report.personOutcomes.set('a/1', 'unchanged');
    report.personOutcomes.set('a/2', 'created');
    report.personOutcomes.set('a/3', 'unchanged');
    // A membership changed in the second reading.
    report.personOutcomes.set('a/3', 'updated');
    expect(report.finish(true, 0)).toMatchObject({
      dryRun: true,
      persons: { created: 1, updated: 1, unchanged: 1, skipped: 0 },
    });
  });

  it('tells progress without a total until one is known', () => {
    const seen: ImportProgress[] = [];
    const report = new RunReport((progress) => seen.push(progress));
    report.progress('persons and groups', 500);
    report.progress('resources', 0, 1200);
    expect(seen).toEqual([
      { phase: 'persons and groups', done: 500 },
      { phase: 'resources', done: 0, total: 1200 },
    ]);
    expect(() => new RunReport().progress('resources', 1)).not.toThrow();
  });
});

describe('messageOf', () => {
  it('joins the problems of invalid input', () => {
    expect(messageOf(new InvalidInputError(['a : x', 'b : y']))).toBe('a : x; b : y');
  });

  it('keeps the last line of a database error, where its cause is', () => {
    const error = new Error(
      '\nInvalid `tx.person.create()` invocation:\n\n\nUnique constraint failed on the fields: (`pid`)\n',
    );
    expect(messageOf(error)).toBe('Unique constraint failed on the fields: (`pid`)');
  });
});
