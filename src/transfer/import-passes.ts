/**
 * The two readings of the file, and the batches they make. The first reads the persons and groups
 * (groups are held in memory: there are few) and the oids of the resources, so that a reference to
 * a resource of the file is told from a dangling one; the second, once every person and group is
 * in, reads the persons' memberships and the resources.
 */
import type { PersonRecord } from './format.ts';
import { originKey } from './import-identities.ts';
import {
  type Candidate,
  checkGroup,
  checkPerson,
  checkResource,
  declaredOid,
  type Located,
  readRecords,
  type ValidGroup,
} from './import-records.ts';
import type { ImportRun } from './import-run.ts';
import { importGroup, importMemberships, importPersons, importResources } from './import-writes.ts';

/** Persons (in batches), then groups; returns the number of resource lines, the second reading's total. */
export async function readPersonsAndGroups(
  run: ImportRun,
  chunks: AsyncIterable<Buffer | string>,
): Promise<number> {
  const { ids, report } = run;
  const persons: Located<PersonRecord>[] = [];
  const groups: Located<ValidGroup>[] = [];
  const seenPersonOids = new Set<number>();
  const seenGroupKeys = new Set<string>();
  let resourceLines = 0;
  let done = 0;
  const invalidLine = (line: number, message: string) => report.skip(line, 'line', undefined, message);
  for await (const record of readRecords(chunks, run.baseId, invalidLine)) {
    if (record.kind === 'resource') {
      const oid = declaredOid(record.value);
      if (oid !== undefined) ids.fileResourceOids.add(oid);
      resourceLines += 1;
      continue;
    }
    done += 1;
    if (record.kind === 'person') {
      const checked = checkPerson(record.value);
      if ('problem' in checked) {
        report.skip(record.line, 'person', checked.problem.id, checked.problem.message);
        continue;
      }
      const person = checked.valid;
      if (report.personOutcomes.has(person.pid) || seenPersonOids.has(person.oid)) {
        report.skip(record.line, 'person', person.pid, 'pid or oid already earlier in the file');
        continue;
      }
      seenPersonOids.add(person.oid);
      ids.filePersonPids.set(person.oid, person.pid);
      // Reserved now so that a duplicate later in the file is seen; set by the batch.
      report.personOutcomes.set(person.pid, 'unchanged');
      persons.push({ line: record.line, value: person });
      if (persons.length >= run.batchSize) {
        await importPersons(run, persons.splice(0));
        report.progress('persons and groups', done);
      }
    } else {
      const checked = checkGroup(record.value);
      if ('problem' in checked) {
        report.skip(record.line, 'group', checked.problem.id, checked.problem.message);
        continue;
      }
      if (seenGroupKeys.has(checked.valid.nomKey)) {
        report.skip(record.line, 'group', checked.valid.group.nom, 'nom already earlier in the file');
        continue;
      }
      seenGroupKeys.add(checked.valid.nomKey);
      groups.push({ line: record.line, value: checked.valid });
    }
  }
  await importPersons(run, persons);
  // Groups need their managers, so they come once every person is in.
  for (const group of groups) await importGroup(run, group);
  report.progress('persons and groups', done, done);
  return resourceLines;
}

/** Memberships of the persons the first reading took in, then the resources, each in batches. */
export async function readMembershipsAndResources(
  run: ImportRun,
  chunks: AsyncIterable<Buffer | string>,
  resourceLines: number,
): Promise<void> {
  const { ids, report } = run;
  const persons: Located<PersonRecord>[] = [];
  let resources: Located<unknown>[] = [];
  const seen: SeenResources = { oids: new Set(), pairs: new Set() };
  let done = 0;
  report.progress('resources', 0, resourceLines);
  for await (const record of readRecords(chunks, run.baseId)) {
    if (record.kind === 'person') {
      const checked = checkPerson(record.value);
      if ('problem' in checked || !ids.personOids.has(checked.valid.pid)) continue;
      persons.push({ line: record.line, value: checked.valid });
      if (persons.length >= run.batchSize) await importMemberships(run, persons.splice(0));
    } else if (record.kind === 'resource') {
      resources.push({ line: record.line, value: record.value });
      if (resources.length >= run.batchSize) {
        await importResources(run, acceptedResources(run, resources, seen));
        done += resources.length;
        resources = [];
        report.progress('resources', done, resourceLines);
      }
    }
  }
  await importMemberships(run, persons);
  await importResources(run, acceptedResources(run, resources, seen));
  report.progress('resources', done + resources.length, resourceLines);
}

/** Oids and origin pairs of the resources met so far in the file: a second one is skipped. */
interface SeenResources {
  oids: Set<number>;
  pairs: Set<string>;
}

/** The batch's resources the service's rules accept and the file did not give before; the others reported. */
function acceptedResources(run: ImportRun, batch: Located<unknown>[], seen: SeenResources): Candidate[] {
  const { report } = run;
  const candidates: Candidate[] = [];
  for (const { line, value } of batch) {
    const checked = checkResource(line, value, run.baseId);
    if ('problem' in checked) {
      report.skip(line, 'resource', checked.problem.id, checked.problem.message);
      continue;
    }
    const { candidate, warnings } = checked.valid;
    for (const warning of warnings) report.warn(line, 'resource', String(candidate.oid), warning);
    const pair = originKey(candidate.origine, candidate.idOrigine);
    if (seen.oids.has(candidate.oid) || seen.pairs.has(pair)) {
      report.skip(
        line,
        'resource',
        String(candidate.oid),
        'oid or origine/idOrigine already earlier in the file',
      );
      continue;
    }
    seen.oids.add(candidate.oid);
    seen.pairs.add(pair);
    candidates.push(candidate);
  }
  return candidates;
}
