/**
 * The legacy save as decided without the database (src/modules/resources/save-plan.ts): each rule
 * `decideSave` and `planSave` apply, on resources and callers built in memory. The integration
 * tests (resources, rights, audit, trees, transfer) check the same saves through the API.
 */
import { describe, expect, it } from 'vitest';
import type { Viewer } from '../../src/auth/viewer.ts';
import {
  AuthenticationRequiredError,
  DomainError,
  ForbiddenError,
  InvalidInputError,
} from '../../src/errors.ts';
import { parseResourceInput } from '../../src/modules/resources/resource-input.ts';
import {
  type FullResource,
  linkRows,
  storedState,
} from '../../src/modules/resources/resources.repository.ts';
import {
  CONTENT_DEFAULTS,
  creationChanges,
  decideSave,
  namesToResolve,
  planSave,
  type ResolvedNames,
  type SaveDecision,
  type SavePlan,
  type SaveRequest,
} from '../../src/modules/resources/save-plan.ts';
import type { Permission } from '../../src/permissions.ts';
import { anonymous, personViewer, subjectOf, tokenCaller } from '../support/viewers.ts';

const BASE = 'repo';
const ME = 7;
const OTHER = 8;
const WRITERS = 21;
const NOW = new Date('2024-05-06T07:08:09.000Z');
const CREATED = new Date('2020-01-02T03:04:05.000Z');

const teacher = (oid = ME, permissions: Permission[] = [], groups: number[] = []) =>
  personViewer(oid, ['create', ...permissions], groups);

const personRow = (oid: number) => ({
  personOid: oid,
  person: { pid: `lab/${oid}`, nom: `Nom${oid}`, prenom: 'P' },
});
const groupRow = (oid: number, nom: string) => ({ groupOid: oid, group: { nom } });

/** A stored resource, whole: a published public `url` by ME, version 3, inc 5, with `changes`. */
function stored(changes: Partial<FullResource> = {}): FullResource {
  return {
    oid: 10,
    origine: BASE,
    idOrigine: '10',
    titre: 'Titre',
    resume: 'Résumé',
    description: 'Description',
    commentaires: '',
    type: 'url',
    langue: 'fra',
    publie: true,
    restriction: 0,
    indexable: true,
    parametres: { adresse: 'https://exemple.fr' },
    enfants: null,
    aliasOf: null,
    cle: null,
    version: 3,
    inc: 5,
    archiveOid: 40,
    dateCreation: CREATED,
    dateMiseAJour: CREATED,
    licence: null,
    // Kept by the database's triggers; no plan reads them.
    levelTags: '',
    categoryTags: '',
    authors: [personRow(ME)],
    contributors: [],
    parentAuthors: [],
    readerGroups: [],
    authorGroups: [],
    categories: [{ categoryId: 7 }],
    levels: [{ level: '6e' }],
    pedagogicTypes: [],
    documentaryTypes: [],
    relations: [],
    ...changes,
  };
}

function request(
  body: Record<string, unknown>,
  options: { existing?: FullResource | null; viewer?: Viewer; merge?: boolean; forkingAlias?: boolean } = {},
): SaveRequest {
  return {
    input: parseResourceInput(body),
    merge: options.merge ?? false,
    existing: options.existing ?? null,
    forkingAlias: options.forkingAlias ?? false,
    subject: subjectOf(options.viewer ?? teacher()),
    baseId: BASE,
  };
}

function decided(saveRequest: SaveRequest): SaveDecision {
  const decision = decideSave(saveRequest);
  if (decision instanceof DomainError) throw new Error(`refused: ${decision.message}`);
  return decision;
}

function refusal(saveRequest: SaveRequest): DomainError {
  const decision = decideSave(saveRequest);
  if (!(decision instanceof DomainError)) throw new Error('allowed');
  return decision;
}

/** Every pid `lab/<n>` is person n; groups "Maths" (30) and "Ma Classe" (31) exist. */
const everyoneKnown: ResolvedNames = {
  persons: new Map([ME, OTHER, 9, 11].map((oid) => [`lab/${oid}`, oid])),
  groups: new Map([
    ['maths', { oid: 30, nom: 'Maths' }],
    ['ma classe', { oid: 31, nom: 'Ma Classe' }],
  ]),
};

/** Read keys k1, k2, … in the order the plan asks for them. */
function freshKeys() {
  let count = 0;
  return { now: NOW, newReadKey: () => `k${++count}` };
}

function plan(saveRequest: SaveRequest, resolved: ResolvedNames = everyoneKnown): SavePlan {
  return planSave(decided(saveRequest), resolved, freshKeys());
}

function creation(saveRequest: SaveRequest, resolved?: ResolvedNames) {
  const planned = plan(saveRequest, resolved);
  if (planned.kind !== 'create') throw new Error('an update');
  return planned;
}

function update(saveRequest: SaveRequest, resolved?: ResolvedNames) {
  const planned = plan(saveRequest, resolved);
  if (planned.kind !== 'update') throw new Error('a creation');
  return planned;
}

describe('decideSave: who may save', () => {
  it('creating needs the create permission: anonymous must log in, a person without it is refused', () => {
    const body = { titre: 'T', type: 'url' };
    expect(refusal(request(body, { viewer: anonymous }))).toBeInstanceOf(AuthenticationRequiredError);
    const withoutCreate = refusal(request(body, { viewer: personViewer(ME) }));
    expect(withoutCreate).toBeInstanceOf(ForbiddenError);
    expect(withoutCreate.code).toBe('FORBIDDEN');
    expect(decided(request(body, { viewer: tokenCaller })).before).toBeNull();
  });

  it('updating needs the update right: forbidden when the caller can read it, denied otherwise', () => {
    const body = { oid: 10, titre: 'Autre' };
    const publicOne = stored();
    const privateOne = stored({ restriction: 3 });
    expect(refusal(request(body, { existing: publicOne, viewer: teacher(OTHER) }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(refusal(request(body, { existing: publicOne, viewer: anonymous }))).toBeInstanceOf(ForbiddenError);
    expect(refusal(request(body, { existing: privateOne, viewer: anonymous }))).toBeInstanceOf(
      AuthenticationRequiredError,
    );
    expect(refusal(request(body, { existing: privateOne, viewer: teacher(OTHER) }))).toBeInstanceOf(
      ForbiddenError,
    );
    // A member of an author group may update without being an author.
    const shared = stored({ authorGroups: [groupRow(WRITERS, 'Rédaction')] });
    expect(
      decided(request(body, { existing: shared, viewer: teacher(OTHER, [], [WRITERS]) })).after.titre,
    ).toBe('Autre');
  });

  it('an alias of a type this repository cannot edit is only forked, never updated', () => {
    const alias = stored({ type: 'sequenceModele', aliasOf: 'ailleurs/3' });
    const body = { oid: 10, aliasOf: null };
    expect(refusal(request(body, { existing: alias }))).toBeInstanceOf(ForbiddenError);
    expect(decided(request(body, { existing: alias, forkingAlias: true })).after.aliasOf).toBeNull();
    // Forking needs an alias.
    expect(refusal(request(body, { existing: stored(), forkingAlias: true }))).toBeInstanceOf(ForbiddenError);
  });

  it('authors and contributors change only by an author or with updateAuteurs; posting them unchanged is no change', () => {
    const existing = stored({ contributors: [personRow(OTHER)] });
    const contributor = teacher(OTHER);
    const refused = refusal(request({ oid: 10, authors: ['lab/9'] }, { existing, viewer: contributor }));
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect(refused.message).toBe('Seuls les auteurs peuvent modifier les auteurs et contributeurs');
    expect(refusal(request({ oid: 10, contributors: [] }, { existing, viewer: contributor })).message).toBe(
      'Seuls les auteurs peuvent modifier les auteurs et contributeurs',
    );
    expect(
      decided(request({ oid: 10, authors: [`lab/${ME}`], titre: 'T' }, { existing, viewer: contributor }))
        .after.authors,
    ).toEqual([`lab/${ME}`]);
    expect(
      decided(
        request({ oid: 10, authors: ['lab/9'] }, { existing, viewer: teacher(OTHER, ['updateAuteurs']) }),
      ).after.authors,
    ).toEqual(['lab/9']);
    expect(decided(request({ oid: 10, authors: ['lab/9'] }, { existing })).after.authors).toEqual(['lab/9']);
  });

  it('the groups change only by an author or with updateGroupes', () => {
    const existing = stored({ contributors: [personRow(OTHER)] });
    for (const field of ['readerGroups', 'authorGroups']) {
      const body = { oid: 10, [field]: ['Maths'] };
      const refused = refusal(request(body, { existing, viewer: teacher(OTHER) }));
      expect(refused).toBeInstanceOf(ForbiddenError);
      expect(refused.message).toBe('Seuls les auteurs peuvent modifier les groupes');
      const allowed = decided(request(body, { existing, viewer: teacher(OTHER, ['updateGroupes']) }));
      expect(allowed.after).toMatchObject({ [field]: ['Maths'] });
    }
    // Not posted: kept, whoever saves.
    expect(
      decided(request({ oid: 10, titre: 'T' }, { existing, viewer: teacher(OTHER) })).after.readerGroups,
    ).toEqual([]);
  });
});

describe('decideSave: the state written', () => {
  it('a creation starts from the defaults', () => {
    const { after, before } = decided(request({ titre: 'Nouveau', type: 'url', publie: true }));
    expect(before).toBeNull();
    expect(after).toEqual({ ...CONTENT_DEFAULTS, titre: 'Nouveau', type: 'url', publie: true });
    expect(after).toMatchObject({ langue: 'fra', restriction: 0, indexable: true, parametres: {} });
  });

  it('with titre or categories posted and no merge, the content is replaced; ownership, sharing, origin, type and alias are kept', () => {
    const existing = stored({
      origine: 'ailleurs',
      idOrigine: 'x1',
      aliasOf: 'ailleurs/2',
      contributors: [personRow(OTHER)],
      parentAuthors: [personRow(9)],
      readerGroups: [groupRow(30, 'Maths')],
      authorGroups: [groupRow(31, 'Ma Classe')],
    });
    const { after, before } = decided(request({ oid: 10, titre: 'Remplacé' }, { existing }));
    expect(before).toMatchObject({ titre: 'Titre', resume: 'Résumé', categories: [7] });
    expect(after).toEqual({
      ...CONTENT_DEFAULTS,
      titre: 'Remplacé',
      origine: 'ailleurs',
      idOrigine: 'x1',
      aliasOf: 'ailleurs/2',
      type: 'url',
      authors: [`lab/${ME}`],
      auteursParents: ['lab/9'],
      contributors: [`lab/${OTHER}`],
      readerGroups: ['Maths'],
      authorGroups: ['Ma Classe'],
    });
  });

  it('merge, or neither titre nor categories posted, keeps every field not posted', () => {
    const existing = stored();
    const merged = decided(request({ oid: 10, titre: 'Fusionné' }, { existing, merge: true }));
    expect(merged.after).toEqual({ ...merged.before, titre: 'Fusionné' });
    const implied = decided(request({ oid: 10, resume: 'Autre résumé' }, { existing }));
    expect(implied.after).toEqual({ ...implied.before, resume: 'Autre résumé' });
    expect(implied.after).toMatchObject({ titre: 'Titre', categories: [7], niveaux: ['6e'] });
    // categories posted: an overwrite.
    expect(decided(request({ oid: 10, categories: [1] }, { existing })).after).toMatchObject({
      titre: '',
      resume: '',
      niveaux: [],
    });
  });

  it('refuses a creation without type or title, and a relation of a resource to itself, naming each problem', () => {
    const missing = refusal(request({ resume: 'r' }));
    expect(missing).toBeInstanceOf(InvalidInputError);
    expect((missing as InvalidInputError).problems).toEqual([
      'type : obligatoire',
      'titre : obligatoire pour créer une ressource',
    ]);
    const selfRelated = refusal(
      request(
        {
          oid: 10,
          relations: [
            { predicate: 1, rid: 'repo/11' },
            { predicate: 4, rid: 'repo/10' },
          ],
        },
        { existing: stored(), merge: true },
      ),
    );
    expect((selfRelated as InvalidInputError).problems).toEqual([
      'relations[1] : une ressource ne peut être en relation avec elle-même',
    ]);
    // An update keeps its title: an empty one is no problem then.
    expect(decided(request({ oid: 10, titre: '' }, { existing: stored() })).after.titre).toBe('');
  });

  it('the rights are decided before the content: a refused caller gets the refusal, not the problems', () => {
    expect(refusal(request({ resume: 'r' }, { viewer: anonymous }))).toBeInstanceOf(
      AuthenticationRequiredError,
    );
  });
});

describe('namesToResolve', () => {
  it('lists each pid and group name once, whatever field names it', () => {
    const decision = decided(
      request({
        titre: 'T',
        type: 'url',
        authors: ['lab/7', 'lab/8'],
        contributors: ['lab/8', 'lab/9'],
        auteursParents: ['lab/7'],
        readerGroups: ['Maths', 'Ma Classe'],
        authorGroups: ['Maths'],
      }),
    );
    expect(namesToResolve(decision)).toEqual({
      pids: ['lab/7', 'lab/8', 'lab/9'],
      groupNames: ['Maths', 'Ma Classe'],
    });
    expect(namesToResolve(decided(request({ titre: 'T', type: 'url' })))).toEqual({
      pids: [],
      groupNames: [],
    });
  });
});

describe('planSave: names', () => {
  it('leaves unknown persons and groups out, with one warning each after the body’s, in field order', () => {
    const planned = creation(
      request({
        titre: 'T',
        type: 'url',
        inconnue: 1,
        authors: ['lab/7', 'lab/99'],
        contributors: ['lab/98', 'lab/8'],
        auteursParents: ['lab/97'],
        readerGroups: ['Absent', 'maths'],
        authorGroups: ['MA CLASSE', 'Ailleurs'],
      }),
    );
    expect(planned.warnings).toEqual([
      'Propriété inconnue inconnue, ignorée',
      'Auteur lab/99 inconnu, ignoré',
      'Contributeur lab/98 inconnu, ignoré',
      'Auteur parent lab/97 inconnu, ignoré',
      'Groupe Absent inexistant, ignoré',
      'Groupe Ailleurs inexistant, ignoré',
    ]);
    expect(planned.links).toMatchObject({
      authorOids: [7],
      contributorOids: [8],
      parentAuthorOids: [],
      readerGroupOids: [30],
      authorGroupOids: [31],
    });
    // The audit records what is written: known pids, groups under their stored names.
    expect(planned.auditedContent).toMatchObject({
      authors: ['lab/7'],
      contributors: ['lab/8'],
      auteursParents: [],
      readerGroups: ['Maths'],
      authorGroups: ['Ma Classe'],
    });
  });

  it('gives a new resource without known authors to its creator, and only then', () => {
    const nobodyKnown: ResolvedNames = { persons: new Map(), groups: new Map() };
    const byCreator = creation(request({ titre: 'T', type: 'url', authors: ['lab/99'] }), nobodyKnown);
    expect(byCreator.links.authorOids).toEqual([ME]);
    expect(byCreator.auditedContent.authors).toEqual([`lab/${ME}`]);
    expect(byCreator.warnings).toEqual(['Auteur lab/99 inconnu, ignoré']);
    expect(creation(request({ titre: 'T', type: 'url', authors: ['lab/8'] })).links.authorOids).toEqual([
      OTHER,
    ]);
    // A token caller is nobody: the resource has no author.
    expect(creation(request({ titre: 'T', type: 'url' }, { viewer: tokenCaller })).links.authorOids).toEqual(
      [],
    );
    // An update keeps an empty author list empty.
    const emptied = update(request({ oid: 10, authors: [] }, { existing: stored() }));
    expect(emptied.links.authorOids).toEqual([]);
  });
});

describe('planSave: a creation', () => {
  it('without an origin: its own, the oid filling idOrigine once it exists; a read key unless public and published', () => {
    const planned = creation(request({ titre: 'T', type: 'url' }));
    expect(planned.ownOrigin).toBe(true);
    expect(planned.row).toMatchObject({
      origine: BASE,
      idOrigine: 'pending-k1',
      cle: 'k2',
      dateCreation: NOW,
      dateMiseAJour: NOW,
      titre: 'T',
      type: 'url',
      langue: 'fra',
      publie: false,
      restriction: 0,
      indexable: true,
      parametres: {},
      enfants: null,
      aliasOf: null,
    });
    expect(creationChanges(planned, BASE, '12')).toMatchObject({
      origine: { after: BASE },
      idOrigine: { after: '12' },
      titre: { after: 'T' },
      authors: { after: [`lab/${ME}`] },
      relations: { after: [] },
    });
    const publicOne = creation(request({ titre: 'T', type: 'url', publie: true }));
    expect(publicOne.row.cle).toBeNull();
  });

  it('with a posted origin: that pair, which a clash names', () => {
    const planned = creation(request({ titre: 'T', type: 'url', origine: 'ailleurs', idOrigine: '5' }));
    expect(planned.ownOrigin).toBe(false);
    expect(planned.row).toMatchObject({ origine: 'ailleurs', idOrigine: '5' });
    expect(planned.conflictMessage).toBe('Une ressource ailleurs/5 existe déjà');
  });
});

describe('planSave: an update', () => {
  it('a text change bumps inc and rewrites the words, without archive or version', () => {
    const planned = update(request({ oid: 10, resume: 'Nouveau résumé' }, { existing: stored() }));
    expect(planned).toMatchObject({ oid: 10, archive: null, rewriteWords: true });
    expect(planned.row).toMatchObject({ version: 3, inc: 6, archiveOid: 40, resume: 'Nouveau résumé' });
    expect(planned.auditChanges).toEqual({ resume: { before: 'Résumé', after: 'Nouveau résumé' } });
  });

  it('a structural change archives the previous state and bumps version and inc', () => {
    const existing = stored();
    const planned = update(
      request({ oid: 10, parametres: { adresse: 'https://ailleurs.fr' } }, { existing }),
    );
    expect(planned.archive).toEqual({ version: 3, snapshot: storedState(existing, BASE) });
    expect(planned.row).toMatchObject({ version: 4, inc: 6 });
    expect(planned.rewriteWords).toBe(false);
    expect(planned.auditChanges).toEqual({
      parametres: { before: { adresse: 'https://exemple.fr' }, after: { adresse: 'https://ailleurs.fr' } },
    });
    expect(update(request({ oid: 10, authors: ['lab/8'] }, { existing })).row).toMatchObject({ version: 4 });
  });

  it('a save that changes nothing bumps nothing and audits nothing; no parametres is the same as {}', () => {
    const existing = stored({ parametres: null });
    const planned = update(request({ oid: 10, parametres: {}, titre: 'Titre' }, { existing, merge: true }));
    expect(planned).toMatchObject({ archive: null, rewriteWords: false, auditChanges: null });
    expect(planned.row).toMatchObject({ version: 3, inc: 5, dateMiseAJour: NOW });
  });

  it('keeps the read key, makes one when the resource stops being public, drops it when it becomes public', () => {
    const keyed = stored({ publie: false, cle: 'gardée' });
    expect(update(request({ oid: 10, resume: 'x' }, { existing: keyed })).row.cle).toBe('gardée');
    expect(update(request({ oid: 10, restriction: 3 }, { existing: stored() })).row.cle).toBe('k1');
    expect(update(request({ oid: 10, publie: true }, { existing: keyed })).row.cle).toBeNull();
  });

  it('keeps the origin unless posted, and tells the outbox the children before', () => {
    const tree = stored({ type: 'arbre', enfants: [{ aliasOf: 'pair/1' }] });
    const planned = update(request({ oid: 10, enfants: [] }, { existing: tree }));
    expect(planned.row).toMatchObject({ origine: BASE, idOrigine: '10', enfants: [] });
    expect(planned.previousEnfants).toEqual([{ aliasOf: 'pair/1' }]);
    const moved = update(request({ oid: 10, origine: 'ailleurs', idOrigine: 'x' }, { existing: tree }));
    expect(moved.row).toMatchObject({ origine: 'ailleurs', idOrigine: 'x', version: 4 });
    expect(moved.conflictMessage).toBe('Une ressource ailleurs/x existe déjà');
  });

  it('relations: appended ones follow the stored ones; the written rows drop repeated pairs', () => {
    const existing = stored({ relations: [{ predicate: 1, targetRid: 'repo/11' }] });
    const planned = update(
      request(
        {
          relations: [
            { predicate: 1, rid: 'repo/11' },
            { predicate: 4, rid: 'repo/12' },
            { predicate: 1, rid: 'repo/11' },
          ],
        },
        { existing, merge: true },
      ),
    );
    expect(planned.links.relations).toEqual([
      { predicate: 1, rid: 'repo/11' },
      { predicate: 4, rid: 'repo/12' },
      { predicate: 1, rid: 'repo/11' },
    ]);
    expect(linkRows(10, { relations: planned.links.relations }).get('resourceRelation')).toEqual([
      { resourceOid: 10, predicate: 1, targetRid: 'repo/11', position: 0 },
      { resourceOid: 10, predicate: 4, targetRid: 'repo/12', position: 1 },
    ]);
    // Other multi-valued fields are written as they were.
    expect(planned.links).toMatchObject({ authorOids: [ME], categories: [7], niveaux: ['6e'] });
  });
});
