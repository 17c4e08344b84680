/**
 * One scan of the audit log and the archives for many erasures (`erasePersons`): which rows name
 * each person. Without it, each erasure reads the `changes` and `snapshot` of every row to find the
 * few naming its person (no index finds a value inside JSON on both databases), which made the
 * erasure of 1,000 persons over an audit log of 100,000 entries take minutes. Each erasure then
 * reads its rows by key, and searches only the rows written since the scan.
 */
import {
  ARCHIVE_SNAPSHOTS,
  AUDIT_CHANGES,
  type JsonColumn,
  jsonPage,
  type KnownRows,
} from '../../db/erasure-rows.ts';
import { namingValues, type PersonIdentity, stringValues } from './erasure-rewrite.ts';

/** For one person, the rows of each table the scan found naming them. */
export interface PriorScan {
  audit: KnownRows;
  archives: KnownRows;
}

const PAGE = 5000;

/** Scans `target` page by page; returns the keys naming each person, and the last key seen. */
async function scanTable(target: JsonColumn, personsByName: Map<string, number[]>) {
  const keys = new Map<number, number[]>();
  let scannedThrough = 0;
  for (;;) {
    const page = await jsonPage(target, scannedThrough, PAGE);
    for (const row of page) {
      const named = new Set<number>();
      for (const value of stringValues(JSON.parse(row.text))) {
        for (const person of personsByName.get(value) ?? []) named.add(person);
      }
      for (const person of named) {
        const found = keys.get(person);
        if (found) found.push(row.key as number);
        else keys.set(person, [row.key as number]);
      }
    }
    if (page.length > 0) scannedThrough = page.at(-1)!.key as number;
    if (page.length < PAGE) break;
  }
  // Rows written after its last page are searched again by each erasure (key > scannedThrough).
  return { keys, scannedThrough };
}

/** The prior scan of each of `persons`, by oid. */
export async function prescan(persons: PersonIdentity[]): Promise<Map<number, PriorScan>> {
  const personsByName = new Map<string, number[]>();
  for (const person of persons) {
    for (const name of namingValues(person))
      personsByName.set(name, [...(personsByName.get(name) ?? []), person.oid]);
  }
  const audit = await scanTable(AUDIT_CHANGES, personsByName);
  const archives = await scanTable(ARCHIVE_SNAPSHOTS, personsByName);
  return new Map(
    persons.map((person) => [
      person.oid,
      {
        audit: { scannedThrough: audit.scannedThrough, keys: audit.keys.get(person.oid) ?? [] },
        archives: { scannedThrough: archives.scannedThrough, keys: archives.keys.get(person.oid) ?? [] },
      },
    ]),
  );
}
