/** Legacy routes of persons and sessions. */
import { type LegacyRoute, type RequestParts, text } from '../route-table.ts';

/**
 * Body first (as posted: GraphQL rejects wrong types), then the query string: `connexion` is also
 * called as a GET with query parameters.
 */
const fromBodyOrQuery = ({ body, query }: RequestParts, key: string) =>
  Object.hasOwn(body, key) ? body[key] : text(query[key]);

/**
 * `roles` as a list of names, or in the previous service's form, a map `{<role>: true|false}` whose
 * `true` entries count (compatibility notes §2). A map with other values goes on as posted, and
 * GraphQL refuses it.
 */
function legacyRoles(roles: unknown): unknown {
  if (roles === null || typeof roles !== 'object' || Array.isArray(roles)) return roles;
  const entries = Object.entries(roles);
  if (!entries.every(([, granted]) => typeof granted === 'boolean')) return roles;
  return entries.filter(([, granted]) => granted).map(([role]) => role);
}

export const personRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/connexion'],
    operation: 'Login',
    variables: (r) => ({ origine: fromBodyOrQuery(r, 'origine'), token: fromBodyOrQuery(r, 'token') }),
  },
  {
    method: 'get',
    paths: ['/api/connexion'],
    operation: 'Login',
    changesState: true,
    variables: (r) => ({ origine: fromBodyOrQuery(r, 'origine'), token: fromBodyOrQuery(r, 'token') }),
  },
  {
    // Development only (`devLogin: true`); a 404 otherwise.
    method: 'post',
    paths: ['/api/dev/connexion'],
    operation: 'DevLogin',
    variables: ({ body }) => ({
      pid: body.pid,
      nom: body.nom,
      prenom: body.prenom,
      email: body.email,
      roles: legacyRoles(body.roles),
    }),
    shape: (viewer) => ({ ...viewer.person, permissions: viewer.permissions }),
  },
  { method: 'get', paths: ['/api/deconnexion'], operation: 'Logout', changesState: true },
  {
    method: 'get',
    paths: ['/api/personne/current'],
    operation: 'CurrentSession',
    shape: (viewer) => ({
      ...(viewer.person ? { user: viewer.person } : {}),
      sso: viewer.sso,
      ...(viewer.logoutUrl ? { logoutUrl: viewer.logoutUrl } : {}),
      loginLinks: viewer.loginLinks,
    }),
  },
  {
    method: 'get',
    paths: ['/api/personne/me'],
    operation: 'Me',
    shape: ({ __typename, ...viewer }) => viewer,
  },
  {
    method: 'get',
    paths: ['/api/personne/checkPid'],
    operation: 'CheckPid',
    variables: ({ query }) => ({ pid: text(query.pid), nom: text(query.nom) }),
    shape: ({ __typename, ...person }) => person,
  },
  {
    method: 'post',
    paths: ['/api/personne/add'],
    operation: 'AddPerson',
    // Passed as posted: GraphQL rejects wrong types, the service reports what is missing.
    variables: ({ body }) => ({
      input: {
        origine: body.origine,
        idOrigine:
          body.idOrigine === undefined || body.idOrigine === null ? body.idOrigine : String(body.idOrigine),
        nom: body.nom,
        prenom: body.prenom,
        email: body.email,
        roles: legacyRoles(body.roles),
      },
    }),
    shape: (person) => ({ oid: person.oid, pid: person.pid }),
  },
];
