/**
 * What a record becomes here, and whether the database holds exactly that already: the rows of a
 * person, a group and a resource as the import writes them, and their comparison with the rows
 * read back. An import is idempotent because a record whose rows are the same is left alone.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Prisma } from '../db/client.ts';
import { isPublicAndPublished } from '../modules/resources/resources.policy.ts';
import {
  changedLinks,
  type FullResource,
  newReadKey,
  type ResourceLinks,
} from '../modules/resources/resources.repository.ts';
import { storedColumns } from '../modules/resources/save-plan.ts';
import type { PersonRecord } from './format.ts';
import type { Candidate, ValidGroup } from './import-records.ts';

/** A resource row as `resourceRow` builds it. */
export interface ResourceRow {
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

/** Whether the database already holds exactly what the record says. */
export function sameResource(current: FullResource, { row, links }: Prepared): boolean {
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
    Object.keys(changedLinks(current, links)).length === 0
  );
}
