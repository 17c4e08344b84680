/**
 * A cast for resource tests: ten kinds of caller and resources covering each restriction, all
 * made through the public API.
 */
import { expect } from 'vitest';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from './actors.ts';
import { API_TOKEN, type TestApp } from './app.ts';
import { type FakeLab, type LabUser, labUser } from './fake-lab.ts';
import { groupName } from './groups.ts';

export type Actor =
  | 'anonymous'
  | 'author'
  | 'coauthor'
  | 'contributor'
  | 'member'
  | 'manager'
  | 'outsider'
  | 'pupil'
  | 'corrector'
  | 'token';

export const ACTORS: Actor[] = [
  'anonymous',
  'author',
  'coauthor',
  'contributor',
  'member',
  'manager',
  'outsider',
  'pupil',
  'corrector',
  'token',
];

export interface Cast {
  app: TestApp;
  lab: FakeLab;
  browsers: Record<Exclude<Actor, 'anonymous' | 'token'>, Browser>;
  pids: Record<Exclude<Actor, 'anonymous' | 'token'>, string>;
  /** A group `author` created (so manages and belongs to), `member` joined and `manager` manages. */
  group: string;
  /** A caller and the headers it sends. */
  as(actor: Actor): { caller: Browser | ReturnType<TestApp['client']>; headers: Record<string, string> };
}

export async function castFor(app: TestApp, lab: FakeLab): Promise<Cast> {
  const users: Record<string, LabUser> = {
    author: labUser({ type: 1, nom: 'Auteur', prenom: 'Alice' }),
    coauthor: labUser({ type: 1, nom: 'Coauteur', prenom: 'Bob' }),
    contributor: labUser({ type: 1, nom: 'Contrib', prenom: 'Claire' }),
    member: labUser({ type: 1, nom: 'Membre', prenom: 'Denis' }),
    manager: labUser({ type: 1, nom: 'Gérant', prenom: 'Gaël' }),
    outsider: labUser({ type: 1, nom: 'Dehors', prenom: 'Emma' }),
    pupil: labUser({ type: 0, nom: 'Élève', prenom: 'Fanny' }),
  };
  const browsers = {} as Cast['browsers'];
  const pids = {} as Cast['pids'];
  for (const [role, user] of Object.entries(users)) {
    browsers[role as keyof Cast['browsers']] = await logIn(app, lab, user);
    pids[role as keyof Cast['pids']] = `${lab.baseId}/${user.oid}`;
  }
  const corrector = await logInWithRoles(app, lab, ['formateur', 'acces_correction']);
  browsers.corrector = corrector.browser;
  pids.corrector = `${lab.baseId}/${corrector.user.oid}`;
  const group = groupName('Classe');
  const created = await browsers.author.post('/api/groupe').send({ nom: group, ouvert: true });
  expect(created.status).toBe(200);
  expect((await browsers.member.get(`/groupe/rejoindre/${encodeURIComponent(group)}`)).status).toBe(200);
  const managed = await browsers.author.post('/api/groupe').send({
    oid: created.body.oid,
    newGestionnairePid: pids.manager,
    newGestionnaireNom: users.manager!.nom,
  });
  expect(managed.body.gestionnaires, JSON.stringify(managed.body)).toHaveLength(2);
  return {
    app,
    lab,
    browsers,
    pids,
    group,
    as(actor) {
      if (actor === 'anonymous') return { caller: app.client(), headers: {} };
      if (actor === 'token') return { caller: app.client(), headers: tokenHeaders };
      return { caller: browsers[actor], headers: {} };
    },
  };
}

/** Creates a resource with an API token (so any authors may be set); returns its oid. */
export async function createResource(app: TestApp, fields: Record<string, unknown>): Promise<number> {
  const response = await app
    .client()
    .post('/api/ressource')
    .set('X-ApiToken', API_TOKEN)
    .send({ titre: 'Ressource', type: 'url', categories: [7], publie: true, restriction: 0, ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.warnings).toBeUndefined();
  return response.body.oid;
}

/** A resource as a token caller reads it through REST (`GET /api/ressource/:oid`), or null when gone. */
export async function readResource(app: TestApp, oid: number): Promise<Record<string, unknown> | null> {
  const response = await app.client().get(`/api/ressource/${oid}`).set('X-ApiToken', API_TOKEN);
  if (response.status === 404) return null;
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}
