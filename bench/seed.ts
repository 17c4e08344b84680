/**
 * Fills a database with a realistic repository for benchmarks: persons (teachers and pupils),
 * groups with members, resources with a mix of types, restrictions, authors, categories, levels,
 * groups, relations, trees and full-text words. Deterministic (seeded), so runs compare.
 *
 *   DATABASE_URL=… tsx bench/seed.ts [resources] [persons] [groups]
 */
import { insertRows } from '../src/db/bulk-insert.ts';
import { db, openDatabase, provider } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { normaliseForComparison } from '../src/lib/text.ts';
import { SEARCH_INDEX_SETTING, SEARCH_INDEX_VERSION } from '../src/modules/lists/search-index.ts';
import { wordRows } from '../src/modules/resources/resources.repository.ts';

/** mulberry32: a small, fast, seeded generator. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!;
  /** An index skewed towards small values: a few prolific authors, many occasional ones. */
  const skewed = (max: number) => Math.floor(max * next() ** 3);
  return { next, int, pick, skewed };
}

const VOCABULARY = [
  'fractions',
  'décimales',
  'géométrie',
  'triangle',
  'cercle',
  'équations',
  'proportionnalité',
  'calcul',
  'mental',
  'multiplication',
  'division',
  'addition',
  'soustraction',
  'nombres',
  'entiers',
  'relatifs',
  'puissances',
  'théorème',
  'Pythagore',
  'Thalès',
  'statistiques',
  'probabilités',
  'aires',
  'périmètres',
  'volumes',
  'angles',
  'symétrie',
  'repérage',
  'fonctions',
  'linéaires',
  'affines',
  'vecteurs',
  'exercice',
  'problème',
  'révision',
  'évaluation',
  'découverte',
  'méthode',
  'tables',
  'conversions',
];
const NOMS = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
];
const PRENOMS = ['Léa', 'Hugo', 'Chloé', 'Louis', 'Emma', 'Jules', 'Inès', 'Lucas', 'Zoé', 'Nathan'];
const TYPES = ['em', 'em', 'em', 'url', 'url', 'j3p', 'j3p', 'ecjs', 'mathgraph', 'iep', 'arbre', 'mental'];
const LEVELS = ['cp', 'ce1', 'ce2', 'cm1', 'cm2', '6e', '5e', '4e', '3e', '2nde', '1ere', 'tle'];
const BATCH = 2000;

export interface SeedSize {
  resources: number;
  persons: number;
  groups: number;
}

const phrase = (rng: ReturnType<typeof random>, words: number) =>
  Array.from({ length: words }, () => rng.pick(VOCABULARY)).join(' ');

export async function seedBench(size: SeedSize): Promise<void> {
  // Throw-away benchmark data: no need to wait for the disk on every commit.
  if (provider === 'sqlite') await db.$queryRawUnsafe('PRAGMA synchronous = OFF');
  const rng = random(20261121);
  const personRows = Array.from({ length: size.persons }, (_, i) => ({
    oid: i + 1,
    pid: `bench/${i + 1}`,
    nom: `${rng.pick(NOMS)}${i}`,
    prenom: rng.pick(PRENOMS),
    email: null,
  }));
  for (let i = 0; i < personRows.length; i += BATCH)
    await db.person.createMany({ data: personRows.slice(i, i + BATCH) });
  await db.personRole.createMany({
    data: personRows.map((p) => ({
      personOid: p.oid,
      role: p.oid % 4 === 0 ? 'eleve' : 'formateur',
      source: 'lab',
    })),
  });

  const groupRows = Array.from({ length: size.groups }, (_, i) => {
    const nom = `Classe ${i + 1} ${rng.pick(VOCABULARY)}`;
    return {
      oid: i + 1,
      nom,
      nomKey: normaliseForComparison(nom),
      ouvert: rng.next() < 0.3,
      public: rng.next() < 0.5,
    };
  });
  await db.group.createMany({ data: groupRows });
  const managers = groupRows.map((g) => ({
    groupOid: g.oid,
    personOid: 1 + rng.int(size.persons),
    position: 0,
  }));
  await db.groupManager.createMany({ data: managers });
  const members = new Map<string, { groupOid: number; personOid: number }>();
  for (const group of groupRows) {
    for (let k = 0; k < 20; k++) {
      const personOid = 1 + rng.int(size.persons);
      members.set(`${group.oid}/${personOid}`, { groupOid: group.oid, personOid });
    }
  }
  const memberRows = [...members.values()];
  for (let i = 0; i < memberRows.length; i += BATCH)
    await db.groupMember.createMany({ data: memberRows.slice(i, i + BATCH) });

  const start = new Date('2021-09-01T08:00:00Z').getTime();
  for (let first = 1; first <= size.resources; first += BATCH) {
    const oids = Array.from({ length: Math.min(BATCH, size.resources - first + 1) }, (_, i) => first + i);
    const resources = oids.map((oid) => {
      const restrictionDraw = rng.next();
      const restriction =
        restrictionDraw < 0.7 ? 0 : restrictionDraw < 0.75 ? 1 : restrictionDraw < 0.85 ? 2 : 3;
      const type = rng.pick(TYPES);
      const created = new Date(start + rng.int(5 * 365 * 86_400_000));
      return {
        oid,
        origine: 'bench',
        idOrigine: String(oid),
        type,
        titre: `${phrase(rng, 3 + rng.int(3))} ${oid}`,
        resume: phrase(rng, 6 + rng.int(6)),
        description: rng.next() < 0.5 ? phrase(rng, 12 + rng.int(10)) : '',
        publie: rng.next() < 0.9,
        restriction,
        cle: restriction === 0 ? null : `k${oid}`,
        parametres: {},
        enfants:
          type === 'arbre'
            ? Array.from({ length: 3 + rng.int(3) }, () => ({
                titre: phrase(rng, 2),
                type: 'em',
                aliasOf: `bench/${1 + rng.int(oid)}`,
              }))
            : null,
        dateCreation: created,
        dateMiseAJour: new Date(created.getTime() + rng.int(200 * 86_400_000)),
      };
    });
    const links = {
      authors: [] as { resourceOid: number; personOid: number; position: number }[],
      contributors: [] as { resourceOid: number; personOid: number; position: number }[],
      categories: [] as { resourceOid: number; categoryId: number; position: number }[],
      levels: [] as { resourceOid: number; level: string; position: number }[],
      pedagogic: [] as { resourceOid: number; typeId: number; position: number }[],
      groups: [] as { resourceOid: number; groupOid: number; position: number }[],
      relations: [] as { resourceOid: number; predicate: number; targetRid: string; position: number }[],
      words: [] as ReturnType<typeof wordRows>,
    };
    for (const resource of resources) {
      const oid = resource.oid;
      const author = 1 + rng.skewed(size.persons);
      links.authors.push({ resourceOid: oid, personOid: author, position: 0 });
      const coauthor = 1 + rng.int(size.persons);
      if (rng.next() < 0.2 && coauthor !== author)
        links.authors.push({ resourceOid: oid, personOid: coauthor, position: 1 });
      if (rng.next() < 0.1)
        links.contributors.push({ resourceOid: oid, personOid: 1 + rng.int(size.persons), position: 0 });
      const category = 1 + rng.int(9);
      links.categories.push({ resourceOid: oid, categoryId: category, position: 0 });
      if (rng.next() < 0.4)
        links.categories.push({ resourceOid: oid, categoryId: (category % 9) + 1, position: 1 });
      const level = rng.int(LEVELS.length);
      links.levels.push({ resourceOid: oid, level: LEVELS[level]!, position: 0 });
      if (level + 1 < LEVELS.length && rng.next() < 0.5)
        links.levels.push({ resourceOid: oid, level: LEVELS[level + 1]!, position: 1 });
      links.pedagogic.push({ resourceOid: oid, typeId: rng.pick([3, 9, 7, 2]), position: 0 });
      if (resource.restriction === 2)
        links.groups.push({ resourceOid: oid, groupOid: 1 + rng.int(size.groups), position: 0 });
      if (oid > 1 && rng.next() < 0.2)
        links.relations.push({
          resourceOid: oid,
          predicate: 1,
          targetRid: `bench/${rng.int(oid - 1) + 1}`,
          position: 0,
        });
      for (const row of wordRows(oid, resource)) links.words.push(row);
    }
    // Written as the importer writes new resources (src/db/bulk-insert.ts), not by Prisma's
    // createMany, whose CPU per row and kept statements (its debug ring) made 100k on PostgreSQL
    // take 540 s and up to 2.3 GB of memory, against 190 s and 450 MB (1M: 27 min). The same rows
    // in the same order through the same triggers: the same database (compared table by table on
    // both providers). A batch of thousands of rows takes seconds on a busy machine: more than
    // Prisma's default 5 s.
    await db.$transaction(
      async (tx) => {
        await insertRows(tx, 'Resource', resources, ['parametres', 'enfants']);
        await insertRows(tx, 'ResourceAuthor', links.authors);
        await insertRows(tx, 'ResourceContributor', links.contributors);
        await insertRows(tx, 'ResourceCategory', links.categories);
        await insertRows(tx, 'ResourceLevel', links.levels);
        await insertRows(tx, 'ResourcePedagogicType', links.pedagogic);
        await insertRows(tx, 'ResourceGroup', links.groups);
        await insertRows(tx, 'ResourceRelation', links.relations);
        await insertRows(tx, 'ResourceWord', links.words);
      },
      { timeout: 300_000, maxWait: 60_000 },
    );
  }
  if (provider === 'postgresql') {
    // Explicit ids leave the sequences behind; later inserts must not collide.
    for (const table of ['Person', 'Group', 'Resource']) {
      await db.$executeRawUnsafe(
        `SELECT setval(pg_get_serial_sequence('"${table}"', 'oid'), (SELECT COALESCE(MAX(oid), 1) FROM "${table}"))`,
      );
    }
  } else {
    // The tags' triggers updated every resource after its rows went in (see below): compacted.
    await db.$executeRawUnsafe('VACUUM');
    await db.$executeRawUnsafe('ANALYZE');
  }
  // As autovacuum leaves a live database: statistics, and the visibility map that index-only
  // scans need (a freshly loaded table has none). The tags' triggers updated every resource after
  // its rows went in, leaving Resource's indexes several times their size (bench/README.md):
  // rebuilt once, as a restored dump has them.
  if (provider === 'postgresql') {
    await db.$executeRawUnsafe('REINDEX TABLE "Resource"');
    await db.$executeRawUnsafe('VACUUM ANALYZE');
  }
  // The word rows were written by today's `wordRows`: a service started on this database has no
  // index to rebuild (the bench measures it serving, not reindexing).
  await db.serviceSetting.upsert({
    where: { key: SEARCH_INDEX_SETTING },
    create: { key: SEARCH_INDEX_SETTING, value: SEARCH_INDEX_VERSION },
    update: { value: SEARCH_INDEX_VERSION },
  });
}

async function main() {
  const [resources = '100000', persons = '5000', groups = '500'] = process.argv.slice(2);
  const url = process.env.DATABASE_URL ?? 'file:./data/bench/seed.db';
  await applyMigrations(url);
  await openDatabase(url);
  const started = Date.now();
  await seedBench({ resources: Number(resources), persons: Number(persons), groups: Number(groups) });
  console.log(
    `seeded ${resources} resources, ${persons} persons, ${groups} groups in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  await db.$disconnect();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
