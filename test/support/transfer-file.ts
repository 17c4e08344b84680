/**
 * A deterministic export of the previous service (src/transfer/format.ts): persons with
 * legacy `roles` maps, groups, resources with relations, aliases and trees, and a few records that
 * cannot be imported, each for a known reason. Same arguments, same bytes.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface GeneratedExport {
  persons: number;
  groups: number;
  /** Valid resources, oids `firstOid` … `firstOid + resources - 1`. */
  resources: number;
  firstOid: number;
  /** Lines that must be skipped, whatever the database holds. */
  invalid: { persons: number; groups: number; resources: number; lines: number };
  /** Warnings every run reports (unknown references, unknown roles and properties). */
  warnings: number;
}

/** Pids and group names of the default generation; `prefix` gives another set. */
export const pidOf = (i: number, prefix = 'old') => `${prefix}/${i}`;
export const personOidOf = (i: number, first = 1000) => first + i;
export const groupNameOf = (g: number, prefix = 'old') => `Classe importée ${prefix} ${g}`;
const TYPES = ['j3p', 'mathgraph', 'url', 'ecjs', 'iep'];

/** The resource at index i: private ones every 4th, a tree every 100th, an alias every 50th. */
export function resourceAt(
  baseId: string,
  firstOid: number,
  i: number,
  personCount: number,
  groupCount: number,
  prefix = 'old',
) {
  const oid = firstOid + i;
  const restriction = i % 4;
  const publie = i % 7 !== 0;
  const tree = i % 100 === 99;
  const author = pidOf(i % personCount, prefix);
  return {
    oid,
    rid: `${baseId}/${oid}`,
    origine: i % 3 === 0 ? baseId : 'editeur',
    idOrigine: i % 3 === 0 ? String(oid) : `ed-${oid}`,
    titre: `Ressource importée numéro ${i}${i === 4242 ? ' zéphyrin' : ''}`,
    resume: `Résumé ${i % 13}`,
    description: i % 2 ? `Des fractions et des décimales (${i})` : '',
    commentaires: '',
    type: tree ? 'arbre' : TYPES[i % TYPES.length],
    categories: [i % 9, (i + 1) % 9],
    niveaux: [`n${i % 5}`],
    typePedagogiques: [i % 3],
    typeDocumentaires: [],
    auteurs: i % 997 === 5 ? [author, `${prefix}/disparu`] : [author],
    contributeurs: i % 11 === 0 ? [pidOf((i + 1) % personCount, prefix)] : [],
    auteursParents: [],
    groupes: restriction === 2 ? [groupNameOf(i % groupCount, prefix)] : [],
    groupesAuteurs: i % 29 === 0 ? [groupNameOf((i + 3) % groupCount, prefix)] : [],
    relations: i > 0 && i % 5 === 0 ? [[1, `${baseId}/${oid - 1}`]] : [],
    parametres: i % 6 === 0 ? { consigne: `Consigne ${i}`, niveau: i % 4 } : {},
    ...(tree
      ? {
          enfants: [
            { titre: `Feuille ${i - 1}`, type: 'j3p', aliasOf: `${baseId}/${oid - 1}` },
            {
              titre: 'Dossier',
              type: 'arbre',
              enfants: [{ titre: `Feuille ${i - 2}`, type: 'url', aliasOf: `${baseId}/${oid - 2}` }],
            },
          ],
        }
      : {}),
    aliasOf: i % 50 === 49 ? `${baseId}/${oid - 1}` : null,
    cle: restriction === 0 && publie ? null : `cle-importee-${oid}`,
    langue: 'fra',
    publie,
    restriction,
    indexable: true,
    version: 1 + (i % 3),
    inc: i % 5,
    dateCreation: new Date(Date.UTC(2018, 0, 1) + i * 3_600_000).toISOString(),
    dateMiseAJour: new Date(Date.UTC(2019, 0, 1) + i * 3_600_000).toISOString(),
    archiveOid: null,
    // What format=full adds: accepted and ignored.
    _droits: 'RWD',
    _auteurs: ['Prénom Nom'],
  };
}

export async function writeGeneratedExport(
  path: string,
  {
    baseId,
    resources = 10_000,
    persons = 60,
    groups = 12,
    firstOid = 20_000,
    prefix = 'old',
    firstPersonOid = 1000,
    firstGroupOid = 500,
  }: {
    baseId: string;
    resources?: number;
    persons?: number;
    groups?: number;
    firstOid?: number;
    prefix?: string;
    firstPersonOid?: number;
    firstGroupOid?: number;
  },
): Promise<GeneratedExport> {
  const out = createWriteStream(path);
  const write = async (value: unknown) => {
    if (!out.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`))
      await once(out, 'drain');
  };
  await write({ format: 'resource-repository-transfer', version: 1, baseId });
  let warnings = 0;
  for (let i = 0; i < persons; i++) {
    const roles: Record<string, boolean> =
      i === 0 ? { admin: true } : { formateur: i % 2 === 0, eleve: i % 2 === 1 };
    if (i === 1) {
      roles.sorcier = true; // unknown here: dropped, one warning
      warnings += 1;
    }
    await write({
      personne: {
        oid: personOidOf(i, firstPersonOid),
        pid: pidOf(i, prefix),
        nom: `Nom${i}`,
        prenom: `Prénom${i}`,
        email: i % 3 === 0 ? `p${i}@example.org` : null,
        roles,
        groupesMembre: [groupNameOf(i % groups, prefix), ...(i === 2 ? ['Groupe fantôme'] : [])],
        groupesSuivis: i % 2 ? [groupNameOf((i + 1) % groups, prefix)] : [],
      },
    });
    if (i === 2) warnings += 1;
  }
  await write({ personne: { oid: 999, nom: 'Sans pid' } });
  for (let g = 0; g < groups; g++) {
    await write({
      groupe: {
        oid: firstGroupOid + g,
        nom: groupNameOf(g, prefix),
        description: `Groupe ${g}`,
        ouvert: g % 2 === 0,
        public: g % 3 === 0,
        gestionnaires: g === 1 ? [personOidOf(g, firstPersonOid), 424242] : [personOidOf(g, firstPersonOid)],
        gestionnairesNames: [`Prénom${g} Nom${g}`],
        dateCreation: new Date(Date.UTC(2017, 5, g + 1)).toISOString(),
      },
    });
    if (g === 1) warnings += 1;
  }
  await write({ groupe: { oid: firstGroupOid + groups, nom: '  !!  ' } });
  for (let i = 0; i < resources; i++) {
    const resource = resourceAt(baseId, firstOid, i, persons, groups, prefix);
    if (resource.auteurs.length > 1) warnings += 1;
    await write({ ressource: resource });
  }
  const next = firstOid + resources;
  const base = resourceAt(baseId, firstOid, 1, persons, groups, prefix);
  await write({
    ressource: { ...base, oid: next, rid: `${baseId}/${next}`, idOrigine: `x1-${next}`, type: 'error' },
  });
  await write({
    ressource: {
      ...base,
      oid: next + 1,
      rid: `${baseId}/${next + 1}`,
      idOrigine: `x2-${next}`,
      restriction: 7,
    },
  });
  await write({
    ressource: { ...base, oid: next + 2, rid: `${baseId}/${next + 2}`, idOrigine: `x3-${next}`, titre: '' },
  });
  // The same oid twice: the second is skipped.
  await write({ ressource: { ...base, idOrigine: `x4-${next}` } });
  await write('{"ressource": {"oid": 1, "titre": "coupé');
  await write({ ressources: [] });
  out.end();
  await once(out, 'finish');
  return {
    persons,
    groups,
    resources,
    firstOid,
    invalid: { persons: 1, groups: 1, resources: 4, lines: 2 },
    warnings,
  };
}
