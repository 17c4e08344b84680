/**
 * Import of a transfer file (format.ts, docs/import-export.md) into this repository.
 *
 * Identifiers stay what they were: a resource keeps its oid (so its rid and every link to it), a
 * person its pid (and its oid when free), a group its name (and its oid when free). The import is
 * idempotent: each record is compared with what the database holds and written only when it
 * differs; a second run of the same file counts every record unchanged (or skipped again, for the
 * same reasons). A record that cannot be imported is skipped and reported without stopping the
 * rest; a reference that names nothing (an author, a group, a manager) is dropped and reported.
 *
 * The file is read twice, as a stream: first the header, persons and groups (groups are held in
 * memory: there are few), and the oids of the resources (to tell a reference to a resource of the
 * file from a dangling one); then the persons' memberships and the resources, in batches, one
 * transaction per batch (a batch that fails is retried record by record, so a resource is never
 * half written). Derived rows (join tables, full-text words) are built by the functions the
 * resource service saves with (resources.repository.ts); the content generation that invalidates
 * cached answers moves with every Prisma write (src/db/content-changes.ts).
 *
 * Not transferred: archives of previous versions, peer listeners, sessions (see the document).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { db, type Prisma, provider, type Transaction } from '../../db/client.ts';
import { contentChanges } from '../../db/content-changes.ts';
import { InvalidInputError } from '../../errors.ts';
import { checkGroupName, groupNameKey } from '../groups/groups.service.ts';
import { type ParsedResourceInput, parseResourceInput } from '../resources/resource-input.ts';
import { isPublicAndPublished } from '../resources/resources.policy.ts';
import {
  type FullResource,
  fullInclude,
  type LinkTableName,
  linkRows,
  localOid,
  type ResourceLinks,
  ridOf,
  wordRows,
  writeLinks,
  writeWords,
} from '../resources/resources.repository.ts';
import { DEFAULT_LANGUAGE } from '../resources/vocabulary.ts';
import { descendants } from '../trees/tree-walk.ts';
import { insertRows, tableOf } from './bulk-insert.ts';
import {
  describeIssues,
  type GroupRecord,
  groupSchema,
  headerSchema,
  type PersonRecord,
  personSchema,
  type RecordKind,
  readLines,
  recordOf,
  resourceManagedSchema,
} from './format.ts';

export interface ImportOptions {
  /** This repository's baseId: the file's must be the same, or rids would change. */
  baseId: string;
  /** Role names this repository knows (configuration `roles`); others are dropped and reported. */
  roleNames: readonly string[];
  /** Compare and report, write nothing. */
  dryRun?: boolean;
  /** Resources (and persons) per transaction. */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  phase: 'persons and groups' | 'resources';
  /** Records of the phase handled so far. */
  done: number;
  /** Records of the phase in the file (known for resources once the first reading is over). */
  total?: number;
}

export interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

export interface Problem {
  /** Line of the file (1 is the header). */
  line: number;
  kind: RecordKind | 'line';
  /** pid, group name or oid, when the record has one. */
  id?: string;
  message: string;
}

export interface ImportReport {
  dryRun: boolean;
  persons: Counts;
  groups: Counts;
  resources: Counts;
  /** Records not imported, and why. */
  skipped: Problem[];
  /** Records imported without some of their content (unknown references, unknown properties). */
  warnings: Problem[];
  durationMs: number;
}

/** The file cannot be imported at all (its header): nothing was written. */
export class TransferFormatError extends Error {}

type Outcome = 'created' | 'updated' | 'unchanged';
const DEFAULT_BATCH = 500;
/** Interactive transactions default to 5 s; a batch of a few hundred resources may take longer. */
const TRANSACTION = { timeout: 120_000, maxWait: 30_000 } as const;

const newReadKey = () => randomBytes(18).toString('base64url');
/** One line: Prisma's messages start with the call and end with the cause. */
const messageOf = (error: unknown) =>
  error instanceof InvalidInputError
    ? error.problems.join(' ; ')
    : ((error as Error).message.trim().split('\n').filter(Boolean).at(-1) ?? String(error));

export async function importFile(path: string, options: ImportOptions): Promise<ImportReport> {
  return importTransfer(() => createReadStream(path), options);
}

/** Imports the records `open()` streams (called twice: the file is read in two passes). */
export async function importTransfer(
  open: () => AsyncIterable<Buffer | string>,
  options: ImportOptions,
): Promise<ImportReport> {
  const run = new ImportRun(options);
  const started = performance.now();
  await run.firstPass(open());
  await run.secondPass(open());
  if (!run.dryRun) await moveSequencesPastImportedIds();
  return run.report(performance.now() - started);
}

/**
 * PostgreSQL sequences do not move when rows are inserted with explicit ids: move each past the
 * largest id, never back (an oid once given, even deleted since, must not name another resource).
 * SQLite's AUTOINCREMENT keeps the largest id ever inserted by itself.
 */
async function moveSequencesPastImportedIds(): Promise<void> {
  if (provider !== 'postgresql') return;
  for (const table of ['Person', 'Group', 'Resource']) {
    const [sequence] = await db.$queryRawUnsafe<{ name: string }[]>(
      `SELECT pg_get_serial_sequence('"${table}"', 'oid') AS name`,
    );
    if (!sequence?.name) continue;
    const [state] = await db.$queryRawUnsafe<
      { last: bigint | number; called: boolean; max: number | null }[]
    >(
      `SELECT last_value AS last, is_called AS called, (SELECT MAX(oid) FROM "${table}") AS max FROM ${sequence.name}`,
    );
    const used = Math.max(Number(state!.last) - (state!.called ? 0 : 1), Number(state!.max ?? 0));
    await db.$queryRawUnsafe(`SELECT setval('${sequence.name}', ${used + 1}, false)`);
  }
}

interface Located<T> {
  line: number;
  value: T;
}

class ImportRun {
  readonly dryRun: boolean;
  private readonly batchSize: number;
  private readonly counts = {
    person: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
    group: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
    resource: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
  };
  private readonly skipped: Problem[] = [];
  private readonly warnings: Problem[] = [];
  /** Person outcomes by pid: memberships (second pass) may turn `unchanged` into `updated`. */
  private readonly personOutcomes = new Map<string, Outcome>();
  /** pid → oid in this database (or, in a dry run, the oid it would get). */
  private readonly personOids = new Map<string, number>();
  /** The file's person oids → pid (group managers are person oids of the exporting service). */
  private readonly filePersonPids = new Map<number, string>();
  /** Normalised group name → oid here. */
  private readonly groupOids = new Map<string, number>();
  /** Oids of the file's resources: a reference to one of them is not dangling. */
  private readonly fileResourceOids = new Set<number>();
  private resourceLines = 0;
  private readonly roleNames: ReadonlySet<string>;

  constructor(private readonly options: ImportOptions) {
    this.dryRun = options.dryRun ?? false;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH;
    this.roleNames = new Set(options.roleNames);
  }

  report(durationMs: number): ImportReport {
    // Persons are counted at the end: their memberships are compared in the second pass.
    for (const outcome of this.personOutcomes.values()) this.counts.person[outcome] += 1;
    return {
      dryRun: this.dryRun,
      persons: this.counts.person,
      groups: this.counts.group,
      resources: this.counts.resource,
      skipped: byLine(this.skipped),
      warnings: byLine(this.warnings),
      durationMs: Math.round(durationMs),
    };
  }

  private skip(line: number, kind: Problem['kind'], id: string | undefined, message: string) {
    this.skipped.push({ line, kind, ...(id !== undefined ? { id } : {}), message });
    if (kind !== 'line') this.counts[kind].skipped += 1;
  }

  private warn(line: number, kind: RecordKind, id: string, message: string) {
    this.warnings.push({ line, kind, id, message });
  }

  private progress(phase: ImportProgress['phase'], done: number, total?: number) {
    this.options.onProgress?.({ phase, done, ...(total !== undefined ? { total } : {}) });
  }

  /** Lines as records; the header checked first. Invalid lines are reported once (first pass). */
  private async *records(chunks: AsyncIterable<Buffer | string>, report: boolean) {
    let header = false;
    for await (const { line, number } of readLines(chunks)) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        if (!header) throw new TransferFormatError(`ligne ${number} : l’en-tête n’est pas du JSON`);
        if (report) this.skip(number, 'line', undefined, 'JSON invalide');
        continue;
      }
      if (!header) {
        this.checkHeader(value, number);
        header = true;
        continue;
      }
      const record = recordOf(value);
      if ('error' in record) {
        if (report) this.skip(number, 'line', undefined, record.error);
        continue;
      }
      yield { line: number, ...record };
    }
    if (!header) throw new TransferFormatError('fichier vide : il faut au moins l’en-tête');
  }

  private checkHeader(value: unknown, line: number) {
    const header = headerSchema.safeParse(value);
    if (!header.success) {
      throw new TransferFormatError(
        `ligne ${line} : en-tête invalide (${describeIssues(header.error).join(' ; ')})`,
      );
    }
    if (header.data.baseId !== this.options.baseId) {
      throw new TransferFormatError(
        `le fichier vient de la base ${header.data.baseId} et ce service est ${this.options.baseId} : ` +
          `les rid changeraient (${header.data.baseId}/<oid> deviendrait ${this.options.baseId}/<oid>). ` +
          `Configurez baseId (ou BASE_ID) à ${header.data.baseId}.`,
      );
    }
  }

  // -------------------------------------------------------------------------------------------
  // First pass: persons, groups, resource oids

  async firstPass(chunks: AsyncIterable<Buffer | string>) {
    const persons: Located<PersonRecord>[] = [];
    const groups: Located<GroupRecord>[] = [];
    const seenPersonOids = new Set<number>();
    const seenGroupKeys = new Set<string>();
    let done = 0;
    for await (const record of this.records(chunks, true)) {
      if (record.kind === 'resource') {
        const oid = (record.value as { oid?: unknown } | null)?.oid;
        if (typeof oid === 'number' && Number.isInteger(oid)) this.fileResourceOids.add(oid);
        this.resourceLines += 1;
        continue;
      }
      done += 1;
      if (record.kind === 'person') {
        const parsed = personSchema.safeParse(record.value);
        if (!parsed.success) {
          this.skip(
            record.line,
            'person',
            idOf(record.value, 'pid'),
            describeIssues(parsed.error).join(' ; '),
          );
          continue;
        }
        const person = parsed.data;
        if (this.personOutcomes.has(person.pid) || seenPersonOids.has(person.oid)) {
          this.skip(record.line, 'person', person.pid, 'pid ou oid déjà présent plus haut dans le fichier');
          continue;
        }
        seenPersonOids.add(person.oid);
        this.filePersonPids.set(person.oid, person.pid);
        // Reserved now so that a duplicate later in the file is seen; set by the batch.
        this.personOutcomes.set(person.pid, 'unchanged');
        persons.push({ line: record.line, value: person });
        if (persons.length >= this.batchSize) {
          await this.importPersons(persons.splice(0));
          this.progress('persons and groups', done);
        }
      } else {
        const parsed = groupSchema.safeParse(record.value);
        if (!parsed.success) {
          this.skip(
            record.line,
            'group',
            idOf(record.value, 'nom'),
            describeIssues(parsed.error).join(' ; '),
          );
          continue;
        }
        let key: string;
        try {
          key = checkGroupName(parsed.data.nom).nomKey;
        } catch (error) {
          this.skip(record.line, 'group', parsed.data.nom, messageOf(error));
          continue;
        }
        if (seenGroupKeys.has(key)) {
          this.skip(record.line, 'group', parsed.data.nom, 'nom déjà présent plus haut dans le fichier');
          continue;
        }
        seenGroupKeys.add(key);
        groups.push({ line: record.line, value: parsed.data });
      }
    }
    await this.importPersons(persons);
    // Groups need their managers, so they come once every person is in.
    for (const group of groups) await this.importGroup(group);
    this.progress('persons and groups', done, done);
  }

  private async importPersons(batch: Located<PersonRecord>[]) {
    if (batch.length === 0) return;
    const existing = await db.person.findMany({
      where: { pid: { in: batch.map((p) => p.value.pid) } },
      include: { roles: { select: { role: true } } },
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
      const unknownRoles = person.roles.filter((role) => !this.roleNames.has(role));
      if (unknownRoles.length > 0) {
        this.warn(line, 'person', person.pid, `rôles inconnus ici, ignorés : ${unknownRoles.join(', ')}`);
        person.roles = person.roles.filter((role) => this.roleNames.has(role));
      }
      const current = byPid.get(person.pid);
      if (current) {
        if (current.oid !== person.oid) {
          this.warn(
            line,
            'person',
            person.pid,
            `déjà présente ici avec l’oid ${current.oid} (fichier : ${person.oid}), qu’elle garde`,
          );
        }
        this.personOids.set(person.pid, current.oid);
        const same =
          current.nom === person.nom &&
          current.prenom === person.prenom &&
          current.email === person.email &&
          isDeepStrictEqual(current.roles.map((r) => r.role).sort(), person.roles);
        this.personOutcomes.set(person.pid, same ? 'unchanged' : 'updated');
        if (!same) updates.push({ oid: current.oid, located });
      } else if (takenOids.has(person.oid)) {
        this.warn(
          line,
          'person',
          person.pid,
          `oid ${person.oid} déjà pris ici par une autre personne : nouvel oid`,
        );
        freshOids.push(located);
        this.personOutcomes.set(person.pid, 'created');
      } else {
        creations.push(located);
        this.personOids.set(person.pid, person.oid);
        this.personOutcomes.set(person.pid, 'created');
      }
    }
    if (this.dryRun) {
      for (const { value } of freshOids) this.personOids.set(value.pid, -1);
      return;
    }
    try {
      await db.$transaction((tx) => this.writePersons(tx, creations, updates, freshOids), TRANSACTION);
    } catch {
      // One person spoilt the batch: each alone, so the others go in.
      for (const located of creations) {
        await this.writePersonAlone(located, (tx) => this.writePersons(tx, [located], [], []));
      }
      for (const update of updates) {
        await this.writePersonAlone(update.located, (tx) => this.writePersons(tx, [], [update], []));
      }
      for (const located of freshOids) {
        await this.writePersonAlone(located, (tx) => this.writePersons(tx, [], [], [located]));
      }
    }
  }

  private async writePersonAlone(
    { line, value }: Located<PersonRecord>,
    write: (tx: Transaction) => Promise<void>,
  ) {
    try {
      await db.$transaction(write, TRANSACTION);
    } catch (error) {
      this.personOutcomes.delete(value.pid);
      this.personOids.delete(value.pid);
      this.skip(line, 'person', value.pid, `écriture refusée : ${messageOf(error)}`);
    }
  }

  private async writePersons(
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
      await tx.personRole.deleteMany({ where: { personOid: oid, role: { notIn: person.roles } } });
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
      this.personOids.set(value.pid, oid);
    }
  }

  /** A manager given as a person oid of the file: its pid, then its oid here; else an oid here. */
  private async managerOid(fileOid: number): Promise<number | undefined> {
    const pid = this.filePersonPids.get(fileOid);
    if (pid !== undefined) {
      const oid = this.personOids.get(pid);
      return oid === -1 ? undefined : oid;
    }
    const person = await db.person.findUnique({ where: { oid: fileOid }, select: { oid: true } });
    return person?.oid;
  }

  private async importGroup({ line, value: group }: Located<GroupRecord>) {
    const { nom, nomKey } = checkGroupName(group.nom);
    const managers: number[] = [];
    for (const fileOid of group.gestionnaires) {
      const oid = await this.managerOid(fileOid);
      if (oid === undefined) this.warn(line, 'group', nom, `gestionnaire ${fileOid} inconnu, ignoré`);
      else if (!managers.includes(oid)) managers.push(oid);
    }
    const fields = {
      nom,
      description: group.description,
      ouvert: group.ouvert,
      public: group.public,
      ...(group.dateCreation ? { createdAt: group.dateCreation } : {}),
    };
    try {
      const outcome = await this.writeGroup(line, group.oid, nomKey, fields, managers);
      this.counts.group[outcome] += 1;
    } catch (error) {
      this.skip(line, 'group', nom, messageOf(error));
    }
  }

  private async writeGroup(
    line: number,
    fileOid: number,
    nomKey: string,
    fields: { nom: string; description: string; ouvert: boolean; public: boolean; createdAt?: Date },
    managers: number[],
  ): Promise<Outcome> {
    const { nom } = fields;
    const current = await db.group.findUnique({
      where: { nomKey },
      include: { managers: { select: { personOid: true }, orderBy: { position: 'asc' } } },
    });
    if (current) {
      if (current.oid !== fileOid) {
        this.warn(
          line,
          'group',
          nom,
          `déjà présent ici avec l’oid ${current.oid} (fichier : ${fileOid}), qu’il garde`,
        );
      }
      this.groupOids.set(nomKey, current.oid);
      const same =
        current.nom === fields.nom &&
        current.description === fields.description &&
        current.ouvert === fields.ouvert &&
        current.public === fields.public &&
        (!fields.createdAt || current.createdAt.getTime() === fields.createdAt.getTime()) &&
        isDeepStrictEqual(
          current.managers.map((m) => m.personOid),
          managers,
        );
      if (same) return 'unchanged';
      if (!this.dryRun) {
        await db.$transaction(async (tx) => {
          await tx.group.update({ where: { oid: current.oid }, data: fields });
          await writeManagers(tx, current.oid, managers);
        }, TRANSACTION);
      }
      return 'updated';
    }
    const taken = await db.group.findUnique({ where: { oid: fileOid }, select: { oid: true } });
    if (taken) this.warn(line, 'group', nom, `oid ${fileOid} déjà pris ici par un autre groupe : nouvel oid`);
    if (this.dryRun) {
      this.groupOids.set(nomKey, taken ? -1 : fileOid);
      return 'created';
    }
    const oid = await db.$transaction(async (tx) => {
      const oid = taken ? await nextFreeOid(tx, 'group') : fileOid;
      await tx.group.create({ data: { ...fields, oid, nomKey } });
      await writeManagers(tx, oid, managers);
      return oid;
    }, TRANSACTION);
    this.groupOids.set(nomKey, oid);
    return 'created';
  }

  // -------------------------------------------------------------------------------------------
  // Second pass: memberships, resources

  async secondPass(chunks: AsyncIterable<Buffer | string>) {
    const persons: Located<PersonRecord>[] = [];
    let resources: Located<unknown>[] = [];
    const seen = { oids: new Set<number>(), pairs: new Set<string>() };
    let done = 0;
    this.progress('resources', 0, this.resourceLines);
    for await (const record of this.records(chunks, false)) {
      if (record.kind === 'person') {
        const parsed = personSchema.safeParse(record.value);
        if (!parsed.success || !this.personOids.has(parsed.data.pid)) continue;
        persons.push({ line: record.line, value: parsed.data });
        if (persons.length >= this.batchSize) await this.importMemberships(persons.splice(0));
      } else if (record.kind === 'resource') {
        resources.push({ line: record.line, value: record.value });
        if (resources.length >= this.batchSize) {
          await this.importResources(resources, seen);
          done += resources.length;
          resources = [];
          this.progress('resources', done, this.resourceLines);
        }
      }
    }
    await this.importMemberships(persons);
    await this.importResources(resources, seen);
    this.progress('resources', done + resources.length, this.resourceLines);
  }

  /** Group oids of names, looking up names the file did not define; unknown names reported. */
  private async resolveGroups(names: string[], report: (nom: string) => void): Promise<number[]> {
    const missing = names.map(groupNameKey).filter((key) => !this.groupOids.has(key));
    if (missing.length > 0) {
      const rows = await db.group.findMany({
        where: { nomKey: { in: missing } },
        select: { oid: true, nomKey: true },
      });
      for (const row of rows) this.groupOids.set(row.nomKey, row.oid);
    }
    const oids: number[] = [];
    for (const nom of names) {
      const oid = this.groupOids.get(groupNameKey(nom));
      if (oid === undefined || oid === -1) {
        if (oid === undefined) report(nom);
      } else if (!oids.includes(oid)) oids.push(oid);
    }
    return oids;
  }

  private async importMemberships(batch: Located<PersonRecord>[]) {
    if (batch.length === 0) return;
    const oids = batch.map(({ value }) => this.personOids.get(value.pid)!);
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
      const personOid = this.personOids.get(person.pid)!;
      for (const [table, names, rows] of [
        ['groupMember', person.groupesMembre, members],
        ['groupFollower', person.groupesSuivis, followers],
      ] as const) {
        const wanted = new Set(
          await this.resolveGroups(names, (nom) =>
            this.warn(line, 'person', person.pid, `groupe ${nom} inconnu, ignoré`),
          ),
        );
        const current = personOid === -1 ? new Set<number>() : held(rows, personOid);
        const add = [...wanted].filter((oid) => !current.has(oid));
        const remove = [...current].filter((oid) => !wanted.has(oid));
        if (add.length === 0 && remove.length === 0) continue;
        if (this.personOutcomes.get(person.pid) === 'unchanged')
          this.personOutcomes.set(person.pid, 'updated');
        changes.push({ personOid, table, add, remove });
      }
    }
    if (this.dryRun || changes.length === 0) return;
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

  private async importResources(batch: Located<unknown>[], seen: { oids: Set<number>; pairs: Set<string> }) {
    if (batch.length === 0) return;
    const candidates: Candidate[] = [];
    for (const { line, value } of batch) {
      const candidate = this.parseResource(line, value);
      if (!candidate) continue;
      const pair = `${candidate.origine}\u0000${candidate.idOrigine}`;
      if (seen.oids.has(candidate.oid) || seen.pairs.has(pair)) {
        this.skip(
          line,
          'resource',
          String(candidate.oid),
          'oid ou origine/idOrigine déjà présent plus haut dans le fichier',
        );
        continue;
      }
      seen.oids.add(candidate.oid);
      seen.pairs.add(pair);
      candidates.push(candidate);
    }
    if (candidates.length === 0) return;

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
    const pairOwner = new Map(samePairs.map((row) => [`${row.origine}\u0000${row.idOrigine}`, row.oid]));
    const keyOwner = new Map(sameKeys.map((row) => [row.cle!, row.oid]));
    await this.resolvePersons(candidates);
    const known = await this.knownLocalOids(candidates);

    const creations: Prepared[] = [];
    const updates: Prepared[] = [];
    for (const candidate of candidates) {
      const { line, oid } = candidate;
      const current = byOid.get(oid);
      const problem = conflictOf(candidate, current, pairOwner, keyOwner);
      if (problem) {
        this.skip(line, 'resource', String(oid), problem);
        continue;
      }
      const prepared = await this.prepare(candidate, current, known);
      if (!current) creations.push(prepared);
      else if (!sameResource(current, prepared)) updates.push(prepared);
      else this.counts.resource.unchanged += 1;
    }
    if (this.dryRun) {
      this.counts.resource.created += creations.length;
      this.counts.resource.updated += updates.length;
      return;
    }
    contentChanges.writing();
    try {
      await db.$transaction((tx) => writeResources(tx, creations, updates), TRANSACTION);
      this.counts.resource.created += creations.length;
      this.counts.resource.updated += updates.length;
    } catch {
      // One record spoilt the batch (a concurrent write, a constraint): each alone, so the rest goes in.
      for (const prepared of [...creations, ...updates]) {
        const isCreation = creations.includes(prepared);
        try {
          await db.$transaction(
            (tx) => writeResources(tx, isCreation ? [prepared] : [], isCreation ? [] : [prepared]),
            TRANSACTION,
          );
          this.counts.resource[isCreation ? 'created' : 'updated'] += 1;
        } catch (error) {
          this.skip(
            prepared.line,
            'resource',
            String(prepared.oid),
            `écriture refusée : ${messageOf(error)}`,
          );
        }
      }
    }
  }

  /** The record validated by the service's own rules, or reported and undefined. */
  private parseResource(line: number, value: unknown): Candidate | undefined {
    const managed = resourceManagedSchema.safeParse(value);
    if (!managed.success) {
      this.skip(line, 'resource', idOf(value, 'oid'), describeIssues(managed.error).join(' ; '));
      return undefined;
    }
    const { oid } = managed.data;
    let input: ParsedResourceInput;
    try {
      input = parseResourceInput(value);
    } catch (error) {
      this.skip(line, 'resource', String(oid), messageOf(error));
      return undefined;
    }
    const { fields } = input;
    const problems: string[] = [];
    const rid = ridOf(this.options.baseId, oid);
    if (fields.rid !== undefined && fields.rid !== rid)
      problems.push(`rid : ${fields.rid} ne correspond pas à l’oid (${rid})`);
    if (!fields.type) problems.push('type : obligatoire');
    if (!fields.titre) problems.push('titre : obligatoire');
    if ((fields.origine === undefined) !== (fields.idOrigine === undefined)) {
      problems.push('origine et idOrigine vont ensemble : il faut les deux ou aucun');
    }
    if (problems.length > 0) {
      this.skip(line, 'resource', String(oid), problems.join(' ; '));
      return undefined;
    }
    for (const warning of input.warnings) this.warn(line, 'resource', String(oid), warning);
    return {
      line,
      oid,
      // Created here without an origin: its own (baseId, oid), as the service does.
      origine: fields.origine ?? this.options.baseId,
      idOrigine: fields.idOrigine ?? String(oid),
      fields,
      managed: managed.data,
    };
  }

  /** Fills `personOids` with the batch's pids that the file did not define but the database holds. */
  private async resolvePersons(candidates: Candidate[]) {
    const pids = new Set<string>();
    for (const { fields } of candidates) {
      for (const pid of [
        ...(fields.auteurs ?? []),
        ...(fields.contributeurs ?? []),
        ...(fields.auteursParents ?? []),
      ]) {
        if (!this.personOids.has(pid)) pids.add(pid);
      }
    }
    if (pids.size === 0) return;
    const rows = await db.person.findMany({
      where: { pid: { in: [...pids] } },
      select: { oid: true, pid: true },
    });
    for (const row of rows) this.personOids.set(row.pid, row.oid);
  }

  /** Local oids the batch refers to (relations, aliasOf, tree children) outside the file that exist here. */
  private async knownLocalOids(candidates: Candidate[]): Promise<Set<number>> {
    const referred = new Set<number>();
    for (const { fields } of candidates) {
      for (const rid of localReferences(fields)) {
        const oid = localOid(this.options.baseId, rid);
        if (oid !== undefined && !this.fileResourceOids.has(oid)) referred.add(oid);
      }
    }
    const known = new Set<number>();
    if (referred.size > 0) {
      const rows = await db.resource.findMany({
        where: { oid: { in: [...referred] } },
        select: { oid: true },
      });
      for (const row of rows) known.add(row.oid);
    }
    return known;
  }

  /** What the resource will be here: references resolved (unknown ones dropped and reported). */
  private async prepare(
    candidate: Candidate,
    current: FullResource | undefined,
    known: ReadonlySet<number>,
  ): Promise<Prepared> {
    const { line, oid, fields, managed } = candidate;
    const id = String(oid);
    const { baseId } = this.options;
    const persons = (pids: string[] | undefined, label: string) =>
      (pids ?? []).flatMap((pid) => {
        const personOid = this.personOids.get(pid);
        if (personOid === undefined) this.warn(line, 'resource', id, `${label} ${pid} inconnu, ignoré`);
        return personOid === undefined || personOid === -1 ? [] : [personOid];
      });
    const groups = (names: string[] | undefined) =>
      this.resolveGroups(names ?? [], (nom) =>
        this.warn(line, 'resource', id, `groupe ${nom} inexistant, ignoré`),
      );
    const ownRid = ridOf(baseId, oid);
    const relations = (fields.relations ?? []).filter(([, target]) => {
      if (target !== ownRid) return true;
      this.warn(line, 'resource', id, 'relation avec elle-même ignorée');
      return false;
    });
    for (const rid of localReferences(fields)) {
      const target = localOid(baseId, rid);
      if (target === undefined || !(this.fileResourceOids.has(target) || known.has(target))) {
        this.warn(line, 'resource', id, `référence à ${rid}, absente du fichier et d’ici (gardée)`);
      }
    }
    const links: ResourceLinks = {
      authorOids: persons(fields.auteurs, 'auteur'),
      contributorOids: persons(fields.contributeurs, 'contributeur'),
      parentAuthorOids: persons(fields.auteursParents, 'auteur parent'),
      readerGroupOids: await groups(fields.groupes),
      authorGroupOids: await groups(fields.groupesAuteurs),
      categories: fields.categories ?? [],
      niveaux: fields.niveaux ?? [],
      typePedagogiques: fields.typePedagogiques ?? [],
      typeDocumentaires: fields.typeDocumentaires ?? [],
      relations,
    };
    const publie = fields.publie ?? false;
    const restriction = fields.restriction ?? 0;
    const dateCreation = managed.dateCreation ?? current?.dateCreation ?? new Date();
    const row: ResourceRow = {
      oid,
      origine: candidate.origine,
      idOrigine: candidate.idOrigine,
      titre: fields.titre ?? '',
      resume: fields.resume ?? '',
      description: fields.description ?? '',
      commentaires: fields.commentaires ?? '',
      type: fields.type!,
      langue: fields.langue ?? DEFAULT_LANGUAGE,
      publie,
      restriction,
      indexable: fields.indexable ?? true,
      parametres: (fields.parametres ?? {}) as Prisma.InputJsonValue,
      enfants: fields.enfants ?? null,
      aliasOf: fields.aliasOf ?? null,
      // The service's rule: a read key only on what is not public and published; kept when given.
      cle: isPublicAndPublished({ publie, restriction })
        ? null
        : (managed.cle ?? current?.cle ?? newReadKey()),
      version: managed.version ?? current?.version ?? 1,
      inc: managed.inc ?? current?.inc ?? 0,
      dateCreation,
      dateMiseAJour: managed.dateMiseAJour ?? current?.dateMiseAJour ?? dateCreation,
    };
    return { line, oid, row, links };
  }
}

interface Candidate {
  line: number;
  oid: number;
  origine: string;
  idOrigine: string;
  fields: ParsedResourceInput['fields'];
  managed: ReturnType<typeof resourceManagedSchema.parse>;
}

interface Prepared {
  line: number;
  oid: number;
  row: ResourceRow;
  links: ResourceLinks;
}

/** A resource row as `prepare` builds it. */
interface ResourceRow {
  oid: number;
  origine: string;
  idOrigine: string;
  titre: string;
  resume: string;
  description: string;
  commentaires: string;
  type: string;
  langue: string;
  publie: boolean;
  restriction: number;
  indexable: boolean;
  parametres: Prisma.InputJsonValue;
  enfants: unknown[] | null;
  aliasOf: string | null;
  cle: string | null;
  version: number;
  inc: number;
  dateCreation: Date;
  dateMiseAJour: Date;
}

/** In file order (the passes meet records in another). */
const byLine = (problems: Problem[]) => [...problems].sort((a, b) => a.line - b.line);

function personRow(person: PersonRecord) {
  return { oid: person.oid, pid: person.pid, nom: person.nom, prenom: person.prenom, email: person.email };
}

function idOf(value: unknown, key: string): string | undefined {
  const id = (value as Record<string, unknown> | null)?.[key];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** Rids a resource refers to in this repository's form (relations, alias source, tree children). */
function localReferences(fields: ParsedResourceInput['fields']): string[] {
  const rids = (fields.relations ?? []).map(([, target]) => target);
  if (fields.aliasOf) rids.push(fields.aliasOf);
  for (const child of descendants(fields.enfants))
    if (typeof child.aliasOf === 'string') rids.push(child.aliasOf);
  return rids;
}

/** Why the record cannot take its place here, if it cannot. */
function conflictOf(
  candidate: Candidate,
  current: FullResource | undefined,
  pairOwner: ReadonlyMap<string, number>,
  keyOwner: ReadonlyMap<string, number>,
): string | undefined {
  const { oid, origine, idOrigine } = candidate;
  if (current && (current.origine !== origine || current.idOrigine !== idOrigine)) {
    return `l’oid ${oid} est ici une autre ressource (${current.origine}/${current.idOrigine})`;
  }
  const pairAt = pairOwner.get(`${origine}\u0000${idOrigine}`);
  if (pairAt !== undefined && pairAt !== oid) {
    return `${origine}/${idOrigine} est ici la ressource ${pairAt}`;
  }
  const key = candidate.managed.cle;
  const keyAt = key ? keyOwner.get(key) : undefined;
  if (keyAt !== undefined && keyAt !== oid)
    return `la clé de lecture est déjà celle de la ressource ${keyAt}`;
  return undefined;
}

/** Whether the database already holds exactly what the record says. */
function sameResource(current: FullResource, { row, links }: Prepared): boolean {
  const distinct = <T>(values: T[]) => [...new Set(values)];
  const relations = [...new Map(links.relations.map((r) => [`${r[0]} ${r[1]}`, r])).values()];
  return (
    current.titre === row.titre &&
    current.resume === row.resume &&
    current.description === row.description &&
    current.commentaires === row.commentaires &&
    current.type === row.type &&
    current.langue === row.langue &&
    current.publie === row.publie &&
    current.restriction === row.restriction &&
    current.indexable === row.indexable &&
    isDeepStrictEqual(current.parametres ?? {}, row.parametres) &&
    isDeepStrictEqual(current.enfants ?? null, row.enfants) &&
    current.aliasOf === row.aliasOf &&
    current.cle === row.cle &&
    current.version === row.version &&
    current.inc === row.inc &&
    current.dateCreation.getTime() === row.dateCreation.getTime() &&
    current.dateMiseAJour.getTime() === row.dateMiseAJour.getTime() &&
    isDeepStrictEqual(
      current.authors.map((a) => a.personOid),
      distinct(links.authorOids),
    ) &&
    isDeepStrictEqual(
      current.contributors.map((a) => a.personOid),
      distinct(links.contributorOids),
    ) &&
    isDeepStrictEqual(
      current.parentAuthors.map((a) => a.personOid),
      distinct(links.parentAuthorOids),
    ) &&
    isDeepStrictEqual(
      current.readerGroups.map((g) => g.groupOid),
      distinct(links.readerGroupOids),
    ) &&
    isDeepStrictEqual(
      current.authorGroups.map((g) => g.groupOid),
      distinct(links.authorGroupOids),
    ) &&
    isDeepStrictEqual(
      current.categories.map((c) => c.categoryId),
      distinct(links.categories),
    ) &&
    isDeepStrictEqual(
      current.levels.map((l) => l.level),
      distinct(links.niveaux),
    ) &&
    isDeepStrictEqual(
      current.pedagogicTypes.map((t) => t.typeId),
      distinct(links.typePedagogiques),
    ) &&
    isDeepStrictEqual(
      current.documentaryTypes.map((t) => t.typeId),
      distinct(links.typeDocumentaires),
    ) &&
    isDeepStrictEqual(
      current.relations.map((r) => [r.predicate, r.targetRid]),
      relations,
    )
  );
}

const jsonOrNull = (value: unknown[] | null) =>
  value === null ? (null as unknown as Prisma.InputJsonValue) : (value as Prisma.InputJsonValue);

/**
 * Writes a batch: new resources with their rows inserted table by table for the whole batch
 * (rows built by `linkRows` and `wordRows`, as `writeLinks` and `writeWords` build them), changed
 * resources one by one through `writeLinks` and `writeWords`. The caller moves the content
 * generation first (src/db/content-changes.ts): raw statements do not, the transaction's end does.
 */
async function writeResources(tx: Transaction, creations: Prepared[], updates: Prepared[]) {
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

async function writeManagers(tx: Transaction, groupOid: number, managers: number[]) {
  await tx.groupManager.deleteMany({ where: { groupOid } });
  await tx.groupManager.createMany({
    data: managers.map((personOid, position) => ({ groupOid, personOid, position })),
  });
}

/** An oid above every one in use (for a record whose own oid is taken here). */
async function nextFreeOid(tx: Transaction, model: 'person' | 'group'): Promise<number> {
  const delegate = tx[model] as unknown as {
    aggregate(args: unknown): Promise<{ _max: { oid: number | null } }>;
  };
  const { _max } = await delegate.aggregate({ _max: { oid: true } });
  return (_max.oid ?? 0) + 1;
}
