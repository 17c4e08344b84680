/**
 * The rights on resources as pure functions (compatibility notes §4), case by case; the database
 * form `readableWhere` is compared with `canRead` on stored rows in
 * test/integration/readable-where.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  canChangeAuthors,
  canChangeGroups,
  canCreate,
  canDelete,
  canFork,
  canRead,
  canUpdate,
  isFrozenAlias,
  isHarvestable,
  isPublicAndPublished,
  readableWhere,
  rightsNeedRelations,
  rightsString,
  searchableWhere,
} from '../../src/modules/resources/resources.policy.ts';
import { Restriction } from '../../src/modules/resources/vocabulary.ts';
import { anonymous, factsOf, personViewer, subjectOf, tokenCaller } from '../support/viewers.ts';

const ME = 7;
const OTHER = 8;
const READERS = 20;
const WRITERS = 21;
const me = personViewer(ME);
const meInGroups = personViewer(ME, [], [READERS, WRITERS]);
const corrector = personViewer(ME, ['correction']);
const admin = personViewer(ME, ['allRights']);
/** A type this repository cannot edit: its aliases follow their source. */
const FROZEN = 'sequenceModele';

describe('isPublicAndPublished', () => {
  it.each([
    [true, Restriction.none, true],
    [false, Restriction.none, false],
    [true, Restriction.correction, false],
    [true, Restriction.group, false],
    [true, Restriction.private, false],
  ])('publie %s, restriction %i: %s', (publie, restriction, expected) => {
    expect(isPublicAndPublished({ publie, restriction })).toBe(expected);
  });
});

describe('isHarvestable', () => {
  it('is public, published, indexable and not an alias, every one of the four', () => {
    for (const publie of [true, false]) {
      for (const restriction of [
        Restriction.none,
        Restriction.correction,
        Restriction.group,
        Restriction.private,
      ]) {
        for (const indexable of [true, false]) {
          for (const aliasOf of [null, 'ailleurs/1']) {
            const facts = { publie, restriction, indexable, aliasOf };
            const expected = publie && restriction === Restriction.none && indexable && aliasOf === null;
            expect(isHarvestable(facts), JSON.stringify(facts)).toBe(expected);
          }
        }
      }
    }
  });
});

describe('isFrozenAlias', () => {
  it('is an alias of a type this repository cannot edit', () => {
    expect(isFrozenAlias({ aliasOf: 'ailleurs/1', type: 'sequenceModele' })).toBe(true);
    expect(isFrozenAlias({ aliasOf: 'ailleurs/1', type: 'url' })).toBe(false);
    expect(isFrozenAlias({ aliasOf: null, type: 'sequenceModele' })).toBe(false);
  });
});

describe('canUpdate', () => {
  it.each([
    ['an author', subjectOf(me), factsOf({ authorOids: [OTHER, ME] }), true],
    ['a contributor', subjectOf(me), factsOf({ contributorOids: [ME] }), true],
    [
      'a member of one of its author groups',
      subjectOf(meInGroups),
      factsOf({ authorGroupOids: [OTHER, WRITERS] }),
      true,
    ],
    [
      'a member of a reader group only',
      subjectOf(meInGroups),
      factsOf({ readerGroupOids: [READERS] }),
      false,
    ],
    [
      'a person unrelated to it',
      subjectOf(me),
      factsOf({ authorOids: [OTHER], authorGroupOids: [WRITERS] }),
      false,
    ],
    ['all rights', subjectOf(tokenCaller), factsOf({ authorOids: [OTHER] }), true],
    ['an all-rights person', subjectOf(admin), factsOf({ authorOids: [OTHER] }), true],
    ['anonymous', subjectOf(anonymous), factsOf(), false],
    [
      'nobody on a frozen alias, not even all rights',
      subjectOf(tokenCaller),
      factsOf({ aliasOf: 'a/1', type: FROZEN }),
      false,
    ],
    [
      'even its author on a frozen alias',
      subjectOf(me),
      factsOf({ aliasOf: 'a/1', type: FROZEN, authorOids: [ME] }),
      false,
    ],
    [
      'its author on an editable alias',
      subjectOf(me),
      factsOf({ aliasOf: 'a/1', type: 'arbre', authorOids: [ME] }),
      true,
    ],
  ])('%s: %s', (_name, subject, facts, expected) => {
    expect(canUpdate(subject, facts)).toBe(expected);
  });
});

describe('canFork', () => {
  it('needs an alias that its caller could update were it not one', () => {
    const alias = factsOf({ aliasOf: 'a/1', type: FROZEN, authorOids: [ME] });
    expect(canFork(subjectOf(me), alias)).toBe(true);
    expect(canFork(subjectOf(tokenCaller), alias)).toBe(true);
    expect(canFork(subjectOf(personViewer(OTHER)), alias)).toBe(false);
    expect(canFork(subjectOf(me), { ...alias, aliasOf: null })).toBe(false);
    expect(canFork(subjectOf(tokenCaller), { ...alias, aliasOf: null })).toBe(false);
  });
});

describe('canRead', () => {
  const restricted = [Restriction.correction, Restriction.group, Restriction.private];
  it('lets anyone read a public and published resource', () => {
    for (const viewer of [anonymous, me, tokenCaller])
      expect(canRead(subjectOf(viewer), factsOf())).toBe(true);
  });
  it.each([
    [true, Restriction.correction],
    [true, Restriction.group],
    [true, Restriction.private],
    [false, Restriction.none],
  ])(
    'refuses anonymous callers anything else (publie %s, restriction %i), read key or not',
    (publie, restriction) => {
      const facts = factsOf({ publie, restriction, readerGroupOids: [READERS] });
      expect(canRead(subjectOf(anonymous), facts)).toBe(false);
      expect(canRead(subjectOf(anonymous, { hasReadKey: true }), facts)).toBe(false);
    },
  );
  it('lets all rights read everything', () => {
    for (const restriction of restricted) {
      for (const publie of [true, false]) {
        expect(canRead(subjectOf(tokenCaller), factsOf({ publie, restriction }))).toBe(true);
        expect(canRead(subjectOf(admin), factsOf({ publie, restriction }))).toBe(true);
      }
    }
  });
  it('lets a person holding its read key read it, published or not', () => {
    const facts = factsOf({ publie: false, restriction: Restriction.private });
    expect(canRead(subjectOf(me, { hasReadKey: true }), facts)).toBe(true);
    expect(canRead(subjectOf(me, { hasReadKey: false }), facts)).toBe(false);
  });
  it.each([
    ['an author', subjectOf(me), { authorOids: [ME] }],
    ['a contributor', subjectOf(me), { contributorOids: [ME] }],
    ['a member of one of its author groups', subjectOf(meInGroups), { authorGroupOids: [OTHER, WRITERS] }],
  ])(
    'lets those who may update it read it, unpublished and at every restriction: %s',
    (_name, subject, relation) => {
      for (const restriction of restricted) {
        expect(canRead(subject, factsOf({ publie: false, restriction, ...relation }))).toBe(true);
      }
    },
  );
  it('restriction 1: `correction` holders, once published', () => {
    const facts = factsOf({ restriction: Restriction.correction, readerGroupOids: [READERS] });
    expect(canRead(subjectOf(corrector), facts)).toBe(true);
    expect(canRead(subjectOf(corrector), { ...facts, publie: false })).toBe(false);
    expect(canRead(subjectOf(me), facts)).toBe(false);
    // A reader group opens restriction 2 only.
    expect(canRead(subjectOf(meInGroups), facts)).toBe(false);
  });
  it('restriction 2: members of its reader groups, once published', () => {
    const facts = factsOf({ restriction: Restriction.group, readerGroupOids: [OTHER, READERS] });
    expect(canRead(subjectOf(meInGroups), facts)).toBe(true);
    expect(canRead(subjectOf(meInGroups), { ...facts, publie: false })).toBe(false);
    expect(canRead(subjectOf(me), facts)).toBe(false);
    expect(canRead(subjectOf(corrector), facts)).toBe(false);
  });
  it('restriction 3: nobody else, whatever their groups or permissions', () => {
    const facts = factsOf({ restriction: Restriction.private, readerGroupOids: [READERS] });
    for (const viewer of [me, meInGroups, corrector]) expect(canRead(subjectOf(viewer), facts)).toBe(false);
  });
  it('an unpublished public resource: only those who may update it', () => {
    const facts = factsOf({ publie: false });
    expect(canRead(subjectOf(me), facts)).toBe(false);
    expect(canRead(subjectOf(corrector), facts)).toBe(false);
    expect(canRead(subjectOf(me), { ...facts, authorOids: [ME] })).toBe(true);
  });
});

describe('readableWhere', () => {
  it('is public and published for anonymous callers, everything for all rights', () => {
    expect(readableWhere(subjectOf(anonymous))).toEqual({ publie: true, restriction: Restriction.none });
    expect(readableWhere(subjectOf(tokenCaller))).toEqual({});
    expect(readableWhere(subjectOf(admin))).toEqual({});
  });
  it('for a person: public, their own, their author groups’, and once published their reader groups’', () => {
    expect(readableWhere(subjectOf(meInGroups))).toEqual({
      OR: [
        { publie: true, restriction: Restriction.none },
        { authors: { some: { personOid: ME } } },
        { contributors: { some: { personOid: ME } } },
        { authorGroups: { some: { groupOid: { in: [READERS, WRITERS] } } } },
        {
          publie: true,
          OR: [
            {
              restriction: Restriction.group,
              readerGroups: { some: { groupOid: { in: [READERS, WRITERS] } } },
            },
          ],
        },
      ],
    });
  });
  it('adds published restriction 1 for `correction` holders', () => {
    const where = readableWhere(subjectOf(corrector));
    expect(where.OR?.[4]).toEqual({
      publie: true,
      OR: [
        { restriction: Restriction.group, readerGroups: { some: { groupOid: { in: [] } } } },
        { restriction: Restriction.correction },
      ],
    });
  });
});

describe('searchableWhere', () => {
  it('is indexable for callers without a person, all rights included', () => {
    expect(searchableWhere(anonymous)).toEqual({ indexable: true });
    expect(searchableWhere(tokenCaller)).toEqual({ indexable: true });
  });
  it('for a person, all rights or not: indexable, or written by them', () => {
    for (const viewer of [me, admin]) {
      expect(searchableWhere(viewer)).toEqual({
        OR: [{ indexable: true }, { authors: { some: { personOid: ME } } }],
      });
    }
  });
});

describe('canDelete', () => {
  it.each([
    ['all rights', subjectOf(tokenCaller), factsOf({ authorOids: [OTHER] }), true],
    [
      'the `delete` permission',
      subjectOf(personViewer(ME, ['delete'])),
      factsOf({ authorOids: [OTHER] }),
      true,
    ],
    ['the sole author, nobody contributing', subjectOf(me), factsOf({ authorOids: [ME] }), true],
    [
      'the sole author with a contributor',
      subjectOf(me),
      factsOf({ authorOids: [ME], contributorOids: [OTHER] }),
      false,
    ],
    ['one of two authors', subjectOf(me), factsOf({ authorOids: [ME, OTHER] }), false],
    ['the second of two authors', subjectOf(me), factsOf({ authorOids: [OTHER, ME] }), false],
    ['someone else’s sole author', subjectOf(me), factsOf({ authorOids: [OTHER] }), false],
    ['a contributor', subjectOf(me), factsOf({ contributorOids: [ME] }), false],
    ['a resource without author', subjectOf(me), factsOf(), false],
    ['anonymous', subjectOf(anonymous), factsOf(), false],
    [
      'anonymous, on a resource with a sole author',
      subjectOf(anonymous),
      factsOf({ authorOids: [ME] }),
      false,
    ],
  ])('%s: %s', (_name, subject, facts, expected) => {
    expect(canDelete(subject, facts)).toBe(expected);
  });
});

describe('canCreate', () => {
  it('needs a person with `create`, or all rights', () => {
    expect(canCreate(personViewer(ME, ['create']))).toBe(true);
    expect(canCreate(admin)).toBe(true);
    expect(canCreate(tokenCaller)).toBe(true);
    expect(canCreate(me)).toBe(false);
    expect(canCreate(anonymous)).toBe(false);
    // A permission without a person (no such viewer is built today) creates nothing.
    expect(canCreate({ ...anonymous, permissions: new Set(['create']) })).toBe(false);
  });
});

describe('canChangeAuthors and canChangeGroups', () => {
  const facts = factsOf({ authorOids: [ME], contributorOids: [OTHER] });
  it.each([
    ['an author', me, true, true],
    ['a contributor', personViewer(OTHER), false, false],
    ['all rights', tokenCaller, true, true],
    ['`updateAuteurs`', personViewer(OTHER, ['updateAuteurs']), true, false],
    ['`updateGroupes`', personViewer(OTHER, ['updateGroupes']), false, true],
    ['anonymous', anonymous, false, false],
  ])('%s: authors %s, groups %s', (_name, viewer, authors, groups) => {
    expect(canChangeAuthors(subjectOf(viewer), facts)).toBe(authors);
    expect(canChangeGroups(subjectOf(viewer), facts)).toBe(groups);
  });
});

describe('rightsString', () => {
  it.each([
    ['unreadable', subjectOf(anonymous), factsOf({ restriction: Restriction.private }), ''],
    ['read only', subjectOf(me), factsOf(), 'R'],
    ['read and update', subjectOf(me), factsOf({ authorOids: [ME, OTHER] }), 'RW'],
    ['everything', subjectOf(me), factsOf({ authorOids: [ME] }), 'RWD'],
    ['read and delete', subjectOf(personViewer(ME, ['delete'])), factsOf(), 'RD'],
  ])('%s: "%s"', (_name, subject, facts, expected) => {
    expect(rightsString(subject, facts)).toBe(expected);
  });
});

describe('rightsNeedRelations', () => {
  it('only for persons without all rights', () => {
    expect(rightsNeedRelations(me)).toBe(true);
    expect(rightsNeedRelations(admin)).toBe(false);
    expect(rightsNeedRelations(tokenCaller)).toBe(false);
    expect(rightsNeedRelations(anonymous)).toBe(false);
  });
});
