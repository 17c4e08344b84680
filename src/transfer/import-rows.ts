/**
 * What a record becomes here, and whether the database holds exactly that already: the rows of a
 * person, a group and a resource as the import writes them, and their comparison with the rows
 * read back. An import is idempotent because a record whose rows are the same is left alone.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type FieldValue,
  type RESOURCE_FIELDS,
  type ResourceFieldName,
  type ResourceFieldSpec,
  resourceFields,
} from '../catalogue/resource-fields.ts';
import { isPublicAndPublished } from '../modules/resources/resources.policy.ts';
import {
  changedLinks,
  type FullResource,
  newReadKey,
  type ResourceLinks,
} from '../modules/resources/resources.repository.ts';
import { type StoredColumns, storedColumns } from '../modules/resources/save-plan.ts';
import type { PersonRecord } from './format.ts';
import type { Candidate, ValidGroup } from './import-records.ts';

/** The catalogue's fields an import writes: all but this repository's own (`local`). */
type TransferredField = {
  [N in ResourceFieldName]: (typeof RESOURCE_FIELDS)[N] extends { local: true } ? never : N;
}[ResourceFieldName];

/** A resource row as `resourceRow` builds it. */
export type ResourceRow = Omit<{ [N in TransferredField]: FieldValue<N> }, keyof StoredColumns> &
  StoredColumns;

/** The fields `sameResource` compares: those of the row but its designation (oid, origin pair). */
const COMPARED = resourceFields.filter(
  ([name, field]) => !field.local && field.writer !== 'identity' && name !== 'oid',
) as [TransferredField, ResourceFieldSpec][];

/** A resource ready to be compared and written: its row and its links as oids here. */
export interface Prepared {
  line: number;
  oid: number;
  row: ResourceRow;
  links: ResourceLinks;
}

/** A resource to update: its links are only those that changed, the ones rewritten (`changedLinks`). */
export interface PreparedUpdate extends Omit<Prepared, 'links'> {
  links: Partial<ResourceLinks>;
}

export interface GroupFields {
  nom: string;
  description: string;
  ouvert: boolean;
  public: boolean;
  createdAt?: Date;
}

export function personRow(person: PersonRecord) {
  return { oid: person.oid, pid: person.pid, nom: person.nom, prenom: person.prenom, email: person.email };
}

export function samePerson(
  current: { nom: string; prenom: string; email: string | null; roles: { role: string }[] },
  person: PersonRecord,
): boolean {
  return (
    current.nom === person.nom &&
    current.prenom === person.prenom &&
    current.email === person.email &&
    isDeepStrictEqual(current.roles.map((r) => r.role).sort(), person.roles)
  );
}

/** The group's columns; its creation date only when the file gives one. */
export function groupFields({ group, nom }: ValidGroup): GroupFields {
  return {
    nom,
    description: group.description,
    ouvert: group.ouvert,
    public: group.public,
    ...(group.dateCreation ? { createdAt: group.dateCreation } : {}),
  };
}

/** `managers`: person oids here, in the file's order (the order is kept). */
export function sameGroup(
  current: GroupFields & { createdAt: Date; managers: { personOid: number }[] },
  fields: GroupFields,
  managers: number[],
): boolean {
  return (
    current.nom === fields.nom &&
    current.description === fields.description &&
    current.ouvert === fields.ouvert &&
    current.public === fields.public &&
    (!fields.createdAt || current.createdAt.getTime() === fields.createdAt.getTime()) &&
    isDeepStrictEqual(
      current.managers.map((m) => m.personOid),
      managers,
    )
  );
}

/**
 * The resource's row: what the record gives, the service's defaults for what it leaves out, and
 * for what the service manages itself (read key, counters, dates) what the row holds here already.
 */
export function resourceRow(
  { oid, origine, idOrigine, fields, managed }: Candidate,
  current: FullResource | undefined,
): ResourceRow {
  const { publie, restriction } = storedColumns(fields);
  const dateCreation = managed.dateCreation ?? current?.dateCreation ?? new Date();
  return {
    oid,
    origine,
    idOrigine,
    ...storedColumns(fields),
    // The service's rule: a read key only on what is not public and published; kept when given.
    cle: isPublicAndPublished({ publie, restriction }) ? null : (managed.cle ?? current?.cle ?? newReadKey()),
    version: managed.version ?? current?.version ?? 1,
    inc: managed.inc ?? current?.inc ?? 0,
    dateCreation,
    dateMiseAJour: managed.dateMiseAJour ?? current?.dateMiseAJour ?? dateCreation,
  };
}

/** A stored value as a row holds it: dates by their time, JSON with the catalogue's default for none. */
function comparable(value: unknown, field: ResourceFieldSpec): unknown {
  if (field.kind === 'date') return (value as Date).getTime();
  if (field.kind === 'json') return value ?? field.default ?? null;
  return value;
}

/** Whether the database already holds exactly what the record says. */
export function sameResource(current: FullResource, { row, links }: Prepared): boolean {
  return (
    COMPARED.every(([name, field]) =>
      isDeepStrictEqual(comparable(current[name], field), comparable(row[name], field)),
    ) && Object.keys(changedLinks(current, links)).length === 0
  );
}
