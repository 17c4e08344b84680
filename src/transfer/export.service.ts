/**
 * Export of this repository in the transfer format (format.ts, docs/import-export.md): the header,
 * then persons, groups and resources, each by oid, read in pages so that memory holds one page
 * whatever the size of the repository. Lists inside a record keep their stored order (authors,
 * managers, categories…); sets (roles, group names of a person) are sorted. The same database
 * therefore always gives the same bytes, and an import of an export into an empty database
 * exports to the same file again.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { fieldsWhere } from '../catalogue/resource-fields.ts';
import { db } from '../db/client.ts';
import { PRIVATE_MODE } from '../db/private-files.ts';
import { legacyResourceJson } from '../legacy/resource-json.ts';
import { fullInclude, storedState } from '../modules/resources/resources.repository.ts';
import { FORMAT_NAME, FORMAT_VERSION } from './format.ts';

/** Fields that are this repository's own, left out of export files (the catalogue's `local`). */
const LOCAL_FIELDS = new Set<string>(fieldsWhere((field) => field.local === true));

export interface ExportOptions {
  baseId: string;
  pageSize?: number;
  onProgress?: (progress: { done: number; total: number }) => void;
}

export interface ExportReport {
  persons: number;
  groups: number;
  resources: number;
  durationMs: number;
}

const DEFAULT_PAGE = 500;
const byName = (a: { nomKey: string; nom: string }, b: { nomKey: string; nom: string }) =>
  a.nomKey < b.nomKey ? -1 : a.nomKey > b.nomKey ? 1 : 0;

/**
 * A JSON value with the keys of its objects sorted, at every depth: PostgreSQL's jsonb keeps keys in
 * its own order and SQLite in the written one, so only sorted keys make both export the same bytes.
 */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The persons, by oid, a page at a time: each with its roles and the names of its groups. */
async function* personLines(take: number): AsyncGenerator<string> {
  for (let after = 0; ; ) {
    const persons = await db.person.findMany({
      where: { oid: { gt: after } },
      orderBy: { oid: 'asc' },
      take,
      include: {
        // The development login's grants are no one's (src/permissions.ts roleSourceGrants), and the
        // file has no source: imported, they would become an administrator's.
        roles: { where: { source: { not: 'devLogin' } }, select: { role: true } },
        memberGroups: { select: { group: { select: { nom: true, nomKey: true } } } },
        followedGroups: { select: { group: { select: { nom: true, nomKey: true } } } },
      },
    });
    for (const person of persons) {
      const roles = person.roles.map((r) => r.role).sort();
      yield JSON.stringify({
        personne: {
          oid: person.oid,
          pid: person.pid,
          nom: person.nom,
          prenom: person.prenom,
          email: person.email,
          // The previous service's form of roles.
          roles: Object.fromEntries(roles.map((role) => [role, true])),
          groupesMembre: person.memberGroups
            .map((m) => m.group)
            .sort(byName)
            .map((g) => g.nom),
          groupesSuivis: person.followedGroups
            .map((f) => f.group)
            .sort(byName)
            .map((g) => g.nom),
        },
      });
    }
    if (persons.length < take) break;
    after = persons.at(-1)!.oid;
  }
}

/** The groups, by oid, with their managers' oids in the order they were added. */
async function* groupLines(): AsyncGenerator<string> {
  // Groups are few: one read.
  const groups = await db.group.findMany({
    orderBy: { oid: 'asc' },
    include: { managers: { select: { personOid: true }, orderBy: { position: 'asc' } } },
  });
  for (const group of groups) {
    yield JSON.stringify({
      groupe: {
        oid: group.oid,
        nom: group.nom,
        description: group.description,
        ouvert: group.ouvert,
        public: group.public,
        gestionnaires: group.managers.map((m) => m.personOid),
        dateCreation: group.createdAt.toISOString(),
      },
    });
  }
}

/** The resources, by oid, a page at a time, reporting progress after each page. */
async function* resourceLines(options: ExportOptions, take: number): AsyncGenerator<string> {
  let done = 0;
  const total = options.onProgress ? await db.resource.count() : 0;
  for (let after = 0; ; ) {
    const resources = await db.resource.findMany({
      where: { oid: { gt: after } },
      orderBy: { oid: 'asc' },
      take,
      include: fullInclude,
    });
    for (const resource of resources) {
      // As the previous service's GET routes returned it (the REST layer's one builder of that JSON),
      // without what is this repository's own (an archive's oid would name nothing elsewhere).
      const fields = Object.fromEntries(
        Object.entries(legacyResourceJson(storedState(resource, options.baseId))).filter(
          ([name]) => !LOCAL_FIELDS.has(name),
        ),
      );
      const json = {
        parametres: sortedKeys(fields.parametres),
        ...('enfants' in fields ? { enfants: sortedKeys(fields.enfants) } : {}),
      };
      yield JSON.stringify({ ressource: { ...fields, ...json } });
    }
    done += resources.length;
    options.onProgress?.({ done, total: Math.max(total, done) });
    if (resources.length < take) break;
    after = resources.at(-1)!.oid;
  }
}

/** The lines of the export, one record each (without the newline): the header, then each kind. */
export async function* exportLines(options: ExportOptions): AsyncGenerator<string> {
  const take = options.pageSize ?? DEFAULT_PAGE;
  yield JSON.stringify({ format: FORMAT_NAME, version: FORMAT_VERSION, baseId: options.baseId });
  yield* personLines(take);
  yield* groupLines();
  yield* resourceLines(options, take);
}

/**
 * Writes the export to `path`, through a temporary file renamed at the end: the file is either
 * complete or absent, and readable by its owner only (it names persons).
 */
export async function exportFile(path: string, options: ExportOptions): Promise<ExportReport> {
  const started = performance.now();
  // One name, not a random one: a crashed run's file (it names persons) is replaced, not left.
  const temporary = `${path}.partial`;
  await rm(temporary, { force: true });
  const out = createWriteStream(temporary, { mode: PRIVATE_MODE, flags: 'wx' });
  const counts = { persons: 0, groups: 0, resources: 0 };
  try {
    for await (const line of exportLines(options)) {
      if (line.startsWith('{"personne"')) counts.persons += 1;
      else if (line.startsWith('{"groupe"')) counts.groups += 1;
      else if (line.startsWith('{"ressource"')) counts.resources += 1;
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await rename(temporary, path);
  } catch (error) {
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
  return { ...counts, durationMs: Math.round(performance.now() - started) };
}
