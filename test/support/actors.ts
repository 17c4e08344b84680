/**
 * The callers a test acts as: anonymous, a lab-logged person (teacher or pupil), an administrator,
 * an API-token caller. Each is obtained through the public API, as a client would.
 */
import { expect } from 'vitest';
import { API_TOKEN, type TestApp } from './app.ts';
import { type FakeLab, type LabUser, labUser } from './fake-lab.ts';

export type Browser = ReturnType<TestApp['browser']>;

/** A browser logged in through `lab` as `user`. */
export async function logIn(app: TestApp, lab: FakeLab, user: LabUser = labUser()): Promise<Browser> {
  const browser = app.browser();
  const response = await browser
    .post('/api/connexion')
    .send({ origine: lab.baseUrl, token: lab.tokenFor(user) });
  expect(response.body).toEqual({ success: true });
  return browser;
}

/** Creates (or updates) a person with roles through `personne/add`, as an administrator's tool would. */
export async function addPerson(app: TestApp, person: Record<string, unknown>) {
  const response = await app.client().post('/api/personne/add').set('X-ApiToken', API_TOKEN).send(person);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { success: true; oid: number; pid: string };
}

/** A browser logged in through `lab` as a person holding `roles` (granted by an administrator). */
export async function logInWithRoles(app: TestApp, lab: FakeLab, roles: string[]) {
  const user = labUser();
  await addPerson(app, {
    origine: lab.baseId,
    idOrigine: String(user.oid),
    nom: user.nom,
    prenom: user.prenom,
    roles,
  });
  return { browser: await logIn(app, lab, user), user };
}

/** Headers of an API-token caller. */
export const tokenHeaders = { 'X-ApiToken': API_TOKEN };
