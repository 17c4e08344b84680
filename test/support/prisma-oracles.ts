/**
 * The read model's statements as Prisma would answer them: the references the tests compare the
 * service's own SQL with (src/read-model/). They read every matching row, so they serve as oracles
 * only.
 */
import { type ResourceFieldName, resourceFields } from '../../src/catalogue/resource-fields.ts';
import { db, type Prisma } from '../../src/db/client.ts';
import { termCondition, termRows } from '../../src/modules/lists/fulltext.ts';
import { factsOf, fullInclude, localOid } from '../../src/modules/resources/resources.repository.ts';
import type { ResourceDocument } from '../../src/read-model/documents.ts';
import { MATCH_SCORES, type SearchTerm, WORD_KINDS } from '../../src/read-model/ranked-search.ts';

/** Oids matching `where`, in the order of a list page (ties by oid in the same direction). */
export async function prismaOids(
  where: Prisma.ResourceWhereInput,
  orderColumn: string,
  order: 'asc' | 'desc',
): Promise<number[]> {
  const orderBy = orderColumn === 'oid' ? [{ oid: order }] : [{ [orderColumn]: order }, { oid: order }];
  const rows = await db.resource.findMany({ where, orderBy, select: { oid: true } });
  return rows.map((row) => row.oid);
}

/** The score of one index row matched by `term` (see MATCH_SCORES). */
function rowScore(term: SearchTerm, row: { kind: number; word: string; weight: number }): number {
  if (row.kind === WORD_KINDS.stem) return MATCH_SCORES.stem * row.weight;
  return (row.word === term.word ? MATCH_SCORES.exact : MATCH_SCORES.prefix) * row.weight;
}

/** Whether an index row is one `term` matches, as `termRows` selects them. */
function matches(term: SearchTerm, row: { kind: number; word: string }): boolean {
  if (row.kind === WORD_KINDS.stem) return row.word === term.stem;
  if (term.prefixEnd === undefined) return row.word === term.word;
  // Normalised words are [a-z0-9]: code-unit order is every collation's order for them.
  return row.word >= term.word && (term.prefixEnd === null || row.word < term.prefixEnd);
}

/** A ranked full-text page (src/read-model/ranked-search.ts `rankedOids`), scored here. */
export async function rankedOidsByPrisma(
  terms: SearchTerm[],
  where: Prisma.ResourceWhereInput,
  start: number,
  nb: number,
): Promise<number[]> {
  const rows = await db.resourceWord.findMany({
    where: {
      OR: terms.map(termRows),
      resource: { AND: [where, ...terms.map(termCondition)] },
    },
    select: { resourceOid: true, kind: true, word: true, weight: true },
  });
  const best = new Map<number, number[]>();
  for (const row of rows) {
    const scores = best.get(row.resourceOid) ?? terms.map(() => 0);
    for (const [i, term] of terms.entries()) {
      if (matches(term, row)) scores[i] = Math.max(scores[i]!, rowScore(term, row));
    }
    best.set(row.resourceOid, scores);
  }
  return [...best]
    .map(([oid, scores]) => ({ oid, score: scores.reduce((sum, score) => sum + score, 0) }))
    .sort((a, b) => b.score - a.score || a.oid - b.oid)
    .slice(start, start + nb)
    .map(({ oid }) => oid);
}

/**
 * A resource document (src/read-model/documents.ts) as Prisma reads it, with every part: the
 * reference each part of the read model's statement is compared with.
 */
export async function prismaDocument(
  where: Prisma.ResourceWhereUniqueInput,
  baseId: string,
): Promise<ResourceDocument | null> {
  const row = await db.resource.findUnique({ where, include: fullInclude });
  if (!row) return null;
  const targetOids = [
    ...new Set(row.relations.flatMap((relation) => localOid(baseId, relation.targetRid) ?? [])),
  ];
  const targetRows = await db.resource.findMany({ where: { oid: { in: targetOids } }, include: fullInclude });
  const person = (link: { personOid: number; person: { pid: string; nom: string; prenom: string } }) => ({
    oid: link.personOid,
    ...link.person,
  });
  const group = (link: { groupOid: number; group: { nom: string } }) => ({
    oid: link.groupOid,
    nom: link.group.nom,
  });
  return {
    // Every field of the catalogue, as Prisma reads it: a field the read model forgets is missed.
    ...(Object.fromEntries(resourceFields.map(([name]) => [name, row[name]])) as Pick<
      ResourceDocument,
      ResourceFieldName
    >),
    facts: factsOf(row),
    categories: row.categories.map((c) => c.categoryId),
    niveaux: row.levels.map((l) => l.level),
    typePedagogiques: row.pedagogicTypes.map((t) => t.typeId),
    typeDocumentaires: row.documentaryTypes.map((t) => t.typeId),
    relations: row.relations.map((r) => ({ predicate: r.predicate, targetRid: r.targetRid })),
    authors: row.authors.map(person),
    parentAuthors: row.parentAuthors.map(person),
    contributors: row.contributors.map(person),
    readerGroups: row.readerGroups.map(group),
    authorGroups: row.authorGroups.map(group),
    targets: new Map(
      targetRows
        .sort((a, b) => a.oid - b.oid)
        .map((target) => [
          target.oid,
          { oid: target.oid, titre: target.titre, type: target.type, facts: factsOf(target) },
        ]),
    ),
  };
}
