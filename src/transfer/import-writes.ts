/**
 * The import's writes, a batch at a time: each batch is compared with what the database holds
 * (import-rows.ts), then what differs is written in one transaction. A batch of persons or of
 * resources that fails is retried record by record, so that one bad record is skipped and reported
 * while the rest goes in, and a resource is never half written. A dry run compares and counts, and
 * writes nothing.
 *
 * Derived rows (join tables, full-text words) are built by the functions the resource service saves
 * with (resources.repository.ts); the content generation that invalidates cached answers moves
 * with every Prisma write (src/db/content-changes.ts).
 */

import { insertRows, tableOf } from '../db/bulk-insert.ts';
import { db, type Prisma, type Transaction } from '../db/client.ts';
import { contentChanges } from '../db/content-changes.ts';
import {
  changedLinks,
  fullInclude,
  type LinkTableName,
  linkRows,
  wordRows,
  writeLinks,
  writeWords,
} from '../modules/resources/resources.repository.ts';
import type { PersonRecord } from './format.ts';
import {
  conflictOf,
  type Identities,
  knownLocalOids,
  managerOid,
  originKey,
  resolveGroups,
  resolveLinks,
  resolvePersons,
} from './import-identities.ts';
import type { Candidate, Located, ValidGroup } from './import-records.ts';
import { messageOf, type Outcome } from './import-report.ts';
import {
  type GroupFields,
  groupFields,
  type Prepared,
  type PreparedUpdate,
  personRow,
  resourceRow,
  sameGroup,
  samePerson,
  sameResource,
} from './import-rows.ts';
import type { ImportRun } from './import-run.ts';

/** Interactive transactions default to 5 s; a batch of a few hundred resources may take longer. */
const TRANSACTION = { timeout: 120_000, maxWait: 30_000 } as const;

// ---------------------------------------------------------------------------------------------
// Persons

export async function importPersons(run: ImportRun, batch: Located<PersonRecord>[]) {
  if (batch.length === 0) return;
  const { ids, report } = run;
  // The development login's roles are not in an export (export.service.ts) and stay out of the
  // comparison and the rewrite: a file never names them, so it cannot mean to take them away.
  const existing = await db.person.findMany({
    where: { pid: { in: batch.map((p) => p.value.pid) } },
    include: { roles: { where: { source: { not: 'devLogin' } }, select: { role: true } } },
  });
  const byPid = new Map(existing.map((person) => [person.pid, person]));
  const taken = await db.person.findMany({
    where: { oid: { in: batch.map((p) => p.value.oid) } },
    select: { oid: true },
  });
  const takenOids = new Set(taken.map((person) => person.oid));
  const creations: Located<PersonRecord>[] = [];
  const freshOids: Located<PersonRecord>[] = [];
  const updates: Array<{ oid: number; located: Located<PersonRecord> }> = [];

  for (const located of batch) {
    const { line, value: person } = located;
    const unknownRoles = person.roles.filter((role) => !run.roleNames.has(role));
    if (unknownRoles.length > 0) {
      report.warn(line, 'person', person.pid, `roles unknown here, ignored: ${unknownRoles.join(', ')}`);
      person.roles = person.roles.filter((role) => run.roleNames.has(role));
    }
    const current = byPid.get(person.pid);
    if (current) {
      if (current.oid !== person.oid) {
        report.warn(
          line,
          'person',
          person.pid,
          `already here with oid ${current.oid} (file: ${person.oid}), which it keeps`,
        );
      }
      ids.personOids.set(person.pid, current.oid);
      const same = samePerson(current, person);
      report.personOutcomes.set(person.pid, same ? 'unchanged' : 'updated');
      if (!same) updates.push({ oid: current.oid, located });
    } else if (takenOids.has(person.oid)) {
      report.warn(
        line,
        'person',
        person.pid,
        `oid ${person.oid} already taken here by another person: new oid`,
      );
      freshOids.push(located);
      report.personOutcomes.set(person.pid, 'created');
    } else {
      creations.push(located);
      ids.personOids.set(person.pid, person.oid);
      report.personOutcomes.set(person.pid, 'created');
    }
  }
  if (run.dryRun) {
    for (const { value } of freshOids) ids.personOids.set(value.pid, -1);
    return;
  }
  try {
    await db.$transaction((tx) => writePersons(ids, tx, creations, updates, freshOids), TRANSACTION);
  } catch {
    // One person spoilt the batch: each alone, so the others go in.
    for (const located of creations) {
      await writePersonAlone(run, located, (tx) => writePersons(ids, tx, [located], [], []));
    }
    for (const update of updates) {
      await writePersonAlone(run, update.located, (tx) => writePersons(ids, tx, [], [update], []));
    }
    for (const located of freshOids) {
      await writePersonAlone(run, located, (tx) => writePersons(ids, tx, [], [], [located]));
    }
  }
}

async function writePersonAlone(
  { ids, report }: ImportRun,
  { line, value }: Located<PersonRecord>,
  write: (tx: Transaction) => Promise<void>,
) {
  try {
    await db.$transaction(write, TRANSACTION);
  } catch (error) {
    report.personOutcomes.delete(value.pid);
    ids.personOids.delete(value.pid);
    report.skip(line, 'person', value.pid, `write refused: ${messageOf(error)}`);
  }
}

async function writePersons(
  ids: Identities,
  tx: Transaction,
  creations: Located<PersonRecord>[],
  updates: Array<{ oid: number; located: Located<PersonRecord> }>,
  freshOids: Located<PersonRecord>[],
) {
  if (creations.length > 0) {
    await tx.person.createMany({ data: creations.map(({ value }) => personRow(value)) });
    await tx.personRole.createMany({
      data: creations.flatMap(({ value }) => value.roles.map((role) => ({ personOid: value.oid, role }))),
    });
  }
  for (const { oid, located } of updates) {
    const person = located.value;
    const { oid: _fileOid, pid: _pid, ...fields } = personRow(person);
    await tx.person.update({ where: { oid }, data: fields });
    await tx.personRole.deleteMany({
      where: { personOid: oid, role: { notIn: person.roles }, source: { not: 'devLogin' } },
    });
    const held = await tx.personRole.findMany({ where: { personOid: oid }, select: { role: true } });
    const heldRoles = new Set(held.map((r) => r.role));
    await tx.personRole.createMany({
      data: person.roles.filter((role) => !heldRoles.has(role)).map((role) => ({ personOid: oid, role })),
    });
  }
  for (const { value } of freshOids) {
    const oid = await nextFreeOid(tx, 'person');
    await tx.person.create({ data: { ...personRow(value), oid } });
    await tx.personRole.createMany({ data: value.roles.map((role) => ({ personOid: oid, role })) });
    ids.personOids.set(value.pid, oid);
  }
}

/** Memberships and follows of a batch of persons, once every group is in (second reading). */
export async function importMemberships(run: ImportRun, batch: Located<PersonRecord>[]) {
  if (batch.length === 0) return;
  const { ids, report } = run;
  const oids = batch.map(({ value }) => ids.personOids.get(value.pid)!);
  const [members, followers] = await Promise.all([
    db.groupMember.findMany({
      where: { personOid: { in: oids } },
      select: { personOid: true, groupOid: true },
    }),
    db.groupFollower.findMany({
      where: { personOid: { in: oids } },
      select: { personOid: true, groupOid: true },
    }),
  ]);
  const held = (rows: { personOid: number; groupOid: number }[], personOid: number) =>
    new Set(rows.filter((row) => row.personOid === personOid).map((row) => row.groupOid));
  const changes: Array<{
    personOid: number;
    table: 'groupMember' | 'groupFollower';
    add: number[];
    remove: number[];
  }> = [];
  for (const { line, value: person } of batch) {
    const personOid = ids.personOids.get(person.pid)!;
    for (const [table, names, rows] of [
      ['groupMember', person.groupesMembre, members],
      ['groupFollower', person.groupesSuivis, followers],
    ] as const) {
      const wanted = new Set(
        await resolveGroups(ids, names, (nom) =>
          report.warn(line, 'person', person.pid, `group ${nom} unknown, ignored`),
        ),
      );
      const current = personOid === -1 ? new Set<number>() : held(rows, personOid);
      const add = [...wanted].filter((oid) => !current.has(oid));
      const remove = [...current].filter((oid) => !wanted.has(oid));
      if (add.length === 0 && remove.length === 0) continue;
      if (report.personOutcomes.get(person.pid) === 'unchanged')
        report.personOutcomes.set(person.pid, 'updated');
      changes.push({ personOid, table, add, remove });
    }
  }
  if (run.dryRun || changes.length === 0) return;
  await db.$transaction(async (tx) => {
    for (const { personOid, table, add, remove } of changes) {
      const delegate = tx[table] as unknown as {
        deleteMany(args: unknown): Promise<unknown>;
        createMany(args: unknown): Promise<unknown>;
      };
      if (remove.length > 0) await delegate.deleteMany({ where: { personOid, groupOid: { in: remove } } });
      if (add.length > 0)
        await delegate.createMany({ data: add.map((groupOid) => ({ personOid, groupOid })) });
    }
  }, TRANSACTION);
}

// ---------------------------------------------------------------------------------------------
// Groups: few, one transaction each

/** A group, once every person is in (its managers are persons). */
export async function importGroup(run: ImportRun, { line, value }: Located<ValidGroup>) {
  const { group, nom, nomKey } = value;
  const managers: number[] = [];
  for (const fileOid of group.gestionnaires) {
    const oid = await managerOid(run.ids, fileOid);
    if (oid === undefined) run.report.warn(line, 'group', nom, `manager ${fileOid} unknown, ignored`);
    else if (!managers.includes(oid)) managers.push(oid);
  }
  try {
    const outcome = await writeGroup(run, line, group.oid, nomKey, groupFields(value), managers);
    run.report.counts.group[outcome] += 1;
  } catch (error) {
    run.report.skip(line, 'group', nom, messageOf(error));
  }
}

async function writeGroup(
  { dryRun, ids, report }: ImportRun,
  line: number,
  fileOid: number,
  nomKey: string,
  fields: GroupFields,
  managers: number[],
): Promise<Outcome> {
  const { nom } = fields;
  const current = await db.group.findUnique({
    where: { nomKey },
    include: { managers: { select: { personOid: true }, orderBy: { position: 'asc' } } },
  });
  if (current) {
    if (current.oid !== fileOid) {
      report.warn(
        line,
        'group',
        nom,
        `already here with oid ${current.oid} (file: ${fileOid}), which it keeps`,
      );
    }
    ids.groupOids.set(nomKey, current.oid);
    if (sameGroup(current, fields, managers)) return 'unchanged';
    if (!dryRun) {
      await db.$transaction(async (tx) => {
        await tx.group.update({ where: { oid: current.oid }, data: fields });
        await writeManagers(tx, current.oid, managers);
      }, TRANSACTION);
    }
    return 'updated';
  }
  const taken = await db.group.findUnique({ where: { oid: fileOid }, select: { oid: true } });
  if (taken) report.warn(line, 'group', nom, `oid ${fileOid} already taken here by another group: new oid`);
  if (dryRun) {
    ids.groupOids.set(nomKey, taken ? -1 : fileOid);
    return 'created';
  }
  const oid = await db.$transaction(async (tx) => {
    const oid = taken ? await nextFreeOid(tx, 'group') : fileOid;
    await tx.group.create({ data: { ...fields, oid, nomKey } });
    await writeManagers(tx, oid, managers);
    return oid;
  }, TRANSACTION);
  ids.groupOids.set(nomKey, oid);
  return 'created';
}

async function writeManagers(tx: Transaction, groupOid: number, managers: number[]) {
  await tx.groupManager.deleteMany({ where: { groupOid } });
  await tx.groupManager.createMany({
    data: managers.map((personOid, position) => ({ groupOid, personOid, position })),
  });
}

// ---------------------------------------------------------------------------------------------
// Resources

/** Resources the file gives (checked, first of their oid and origin), compared and written. */
export async function importResources(run: ImportRun, candidates: Candidate[]) {
  if (candidates.length === 0) return;
  const { baseId, ids, report } = run;

  const oids = candidates.map((c) => c.oid);
  const [existing, samePairs, sameKeys] = await Promise.all([
    db.resource.findMany({ where: { oid: { in: oids } }, include: fullInclude }),
    db.resource.findMany({
      where: { idOrigine: { in: [...new Set(candidates.map((c) => c.idOrigine))] } },
      select: { oid: true, origine: true, idOrigine: true },
    }),
    db.resource.findMany({
      where: { cle: { in: candidates.flatMap((c) => (c.managed.cle ? [c.managed.cle] : [])) } },
      select: { oid: true, cle: true },
    }),
  ]);
  const byOid = new Map(existing.map((row) => [row.oid, row]));
  const pairOwner = new Map(samePairs.map((row) => [originKey(row.origine, row.idOrigine), row.oid]));
  const keyOwner = new Map(sameKeys.map((row) => [row.cle!, row.oid]));
  await resolvePersons(ids, candidates);
  const known = await knownLocalOids(ids, baseId, candidates);

  const creations: Prepared[] = [];
  const updates: PreparedUpdate[] = [];
  for (const candidate of candidates) {
    const { line, oid } = candidate;
    const current = byOid.get(oid);
    const problem = conflictOf(candidate, current, pairOwner, keyOwner);
    if (problem) {
      report.skip(line, 'resource', String(oid), problem);
      continue;
    }
    const links = await resolveLinks(ids, baseId, candidate, known, (message) =>
      report.warn(line, 'resource', String(oid), message),
    );
    const prepared: Prepared = { line, oid, row: resourceRow(candidate, current), links };
    if (!current) creations.push(prepared);
    else if (!sameResource(current, prepared))
      updates.push({ ...prepared, links: changedLinks(current, prepared.links) });
    else report.counts.resource.unchanged += 1;
  }
  if (run.dryRun) {
    report.counts.resource.created += creations.length;
    report.counts.resource.updated += updates.length;
    return;
  }
  contentChanges.writing();
  try {
    await db.$transaction((tx) => writeResources(tx, creations, updates), TRANSACTION);
    report.counts.resource.created += creations.length;
    report.counts.resource.updated += updates.length;
  } catch {
    // One record spoilt the batch (a concurrent write, a constraint): each alone, so the rest goes in.
    const alone = [
      ...creations.map((prepared) => ({
        prepared,
        outcome: 'created' as const,
        creations: [prepared],
        updates: [],
      })),
      ...updates.map((prepared) => ({
        prepared,
        outcome: 'updated' as const,
        creations: [],
        updates: [prepared],
      })),
    ];
    for (const { prepared, outcome, ...batch } of alone) {
      try {
        await db.$transaction((tx) => writeResources(tx, batch.creations, batch.updates), TRANSACTION);
        report.counts.resource[outcome] += 1;
      } catch (error) {
        report.skip(prepared.line, 'resource', String(prepared.oid), `write refused: ${messageOf(error)}`);
      }
    }
  }
}

const jsonOrNull = (value: unknown[] | null) =>
  value === null ? (null as unknown as Prisma.InputJsonValue) : (value as Prisma.InputJsonValue);

/**
 * Writes a batch: new resources with their rows inserted table by table for the whole batch
 * (rows built by `linkRows` and `wordRows`, as `writeLinks` and `writeWords` build them), changed
 * resources one by one through `writeLinks` (their links that changed) and `writeWords`. The caller
 * moves the content generation first (src/db/content-changes.ts): raw statements do not, the
 * transaction's end does.
 */
async function writeResources(tx: Transaction, creations: Prepared[], updates: PreparedUpdate[]) {
  if (creations.length > 0) {
    await insertRows(
      tx,
      'Resource',
      creations.map(({ row }) => ({ ...row })),
      ['parametres', 'enfants'],
    );
    const byTable = new Map<LinkTableName | 'resourceWord', Record<string, unknown>[]>();
    const add = (table: LinkTableName | 'resourceWord', rows: Record<string, unknown>[]) => {
      const list = byTable.get(table) ?? [];
      for (const item of rows) list.push(item);
      byTable.set(table, list);
    };
    for (const { oid, row, links } of creations) {
      for (const [table, rows] of linkRows(oid, links)) add(table, rows);
      add('resourceWord', wordRows(oid, row));
    }
    for (const [table, data] of byTable) await insertRows(tx, tableOf(table), data);
  }
  for (const { oid, row, links } of updates) {
    const { oid: _oid, ...fields } = row;
    await tx.resource.update({ where: { oid }, data: { ...fields, enfants: jsonOrNull(row.enfants) } });
    await writeLinks(tx, oid, links);
    await writeWords(tx, oid, row);
  }
}

// ---------------------------------------------------------------------------------------------
// Oids

/** An oid above every one in use (for a record whose own oid is taken here). */
async function nextFreeOid(tx: Transaction, model: 'person' | 'group'): Promise<number> {
  const delegate = tx[model] as unknown as {
    aggregate(args: unknown): Promise<{ _max: { oid: number | null } }>;
  };
  const { _max } = await delegate.aggregate({ _max: { oid: true } });
  return (_max.oid ?? 0) + 1;
}
