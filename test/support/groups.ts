/** Group fixtures through the public API. */
import { expect } from 'vitest';
import type { Browser } from './actors.ts';

let counter = 0;

/** A name no other test uses. */
export function groupName(prefix = 'Groupe'): string {
  counter += 1;
  return `${prefix} ${counter} ${Math.random().toString(36).slice(2, 8)}`;
}

/** Creates a group as `manager` through `POST /api/groupe`; returns the legacy answer. */
export async function createGroup(manager: Browser, fields: Record<string, unknown> = {}) {
  const response = await manager.post('/api/groupe').send({ nom: groupName(), ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as {
    oid: number;
    nom: string;
    gestionnaires: number[];
    ouvert: boolean;
    public: boolean;
  };
}

/**
 * Joins, follows, quits or ignores a group through its legacy GET route. A set-up step: it must
 * succeed, or the test after it would measure a state that was never reached.
 */
export async function groupAction(
  browser: Browser,
  action: 'rejoindre' | 'suivre' | 'quitter' | 'ignorer',
  nom: string,
) {
  const response = await browser.get(`/api/groupe/${action}/${encodeURIComponent(nom)}`);
  expect(response.status, `${action} ${nom}: ${JSON.stringify(response.body)}`).toBe(200);
  expect(response.body.success).toBe(true);
}
