/** Legacy routes of persons and sessions. */
import { ref } from '../api-schemas.ts';
import { type LegacyRoute, type RequestParts, text } from '../route-table.ts';

const s = { type: 'string' };
const loginFields = {
  type: 'object',
  properties: {
    origine: { type: 'string', description: 'base URL of a configured lab' },
    token: { type: 'string', description: 'the lab’s token for the user' },
  },
};
const loginQuery = {
  origine: { type: 'string', description: 'base URL of a configured lab' },
  token: { type: 'string', description: 'the lab’s token for the user' },
};

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
    doc: { summary: 'Log a lab user in (opens a session)', body: loginFields, query: loginQuery },
  },
  {
    method: 'get',
    paths: ['/api/connexion'],
    operation: 'Login',
    changesState: true,
    variables: (r) => ({ origine: fromBodyOrQuery(r, 'origine'), token: fromBodyOrQuery(r, 'token') }),
    doc: { summary: 'Log a lab user in, with query parameters', query: loginQuery },
  },
  {
    method: 'get',
    paths: ['/api/deconnexion'],
    operation: 'Logout',
    changesState: true,
    doc: { summary: 'Log out (ends the session)' },
  },
  {
    // Development only (`devLogin: true`), for callers on this machine unless `devLoginAllowRemote`:
    // a 404 when off, a 403 to a remote caller, each saying how to turn it on.
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
    doc: {
      summary:
        'Development login (only with `devLogin: true` or `DEV_LOGIN=1`, never in production; callers on this machine only unless `devLoginAllowRemote`): opens a session for a pid',
      body: {
        type: 'object',
        properties: {
          pid: { ...s, description: 'origine/idOrigine; the person is created when unknown' },
          nom: s,
          prenom: s,
          email: s,
          roles: {
            type: 'array',
            items: s,
            description: 'roles granted by the development login; they grant nothing once it is off',
          },
        },
        required: ['pid'],
      },
      payload: {
        properties: {
          pid: s,
          nom: s,
          prenom: s,
          roles: { type: 'array', items: s },
          permissions: { type: 'array', items: s },
        },
        required: ['pid', 'roles', 'permissions'],
      },
    },
  },
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
    doc: {
      summary: 'The current user, and where to log in',
      payload: {
        properties: {
          user: {
            type: 'object',
            properties: { pid: s, nom: s, prenom: s },
            required: ['pid', 'nom', 'prenom'],
          },
          sso: {
            type: 'object',
            properties: { name: s, links: { type: 'array', items: ref('Link') } },
            required: ['name', 'links'],
          },
          logoutUrl: s,
          loginLinks: { type: 'array', items: ref('Link') },
        },
        required: ['sso', 'loginLinks'],
      },
    },
  },
  {
    method: 'get',
    paths: ['/api/personne/me'],
    operation: 'Me',
    shape: ({ __typename, ...viewer }) => viewer,
    doc: {
      summary: 'Debug display of the caller',
      payload: {
        properties: {
          kind: { enum: ['anonymous', 'person', 'token'] },
          authenticated: { type: 'boolean' },
          allRights: { type: 'boolean' },
          permissions: { type: 'array', items: s },
          person: { type: ['object', 'null'] },
        },
        required: ['kind', 'authenticated', 'allRights', 'permissions', 'person'],
      },
    },
  },
  {
    method: 'get',
    paths: ['/api/personne/checkPid'],
    operation: 'CheckPid',
    variables: ({ query }) => ({ pid: text(query.pid), nom: text(query.nom) }),
    shape: ({ __typename, ...person }) => person,
    doc: {
      summary: 'Check that a pid belongs to a person of this name',
      query: { pid: { type: 'string' }, nom: { type: 'string', description: 'family name' } },
      payload: {
        properties: { oid: { type: 'integer' }, pid: s, nom: s, prenom: s },
        required: ['oid', 'pid', 'nom', 'prenom'],
      },
    },
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
    doc: {
      summary: 'Create or update a person (pid = origine/idOrigine)',
      body: {
        type: 'object',
        properties: {
          origine: s,
          idOrigine: s,
          nom: s,
          prenom: s,
          email: s,
          roles: {
            description: 'role names, or `{<role>: true|false}`',
            anyOf: [
              { type: 'array', items: s },
              { type: 'object', additionalProperties: { type: 'boolean' } },
            ],
          },
        },
        required: ['origine', 'idOrigine', 'nom'],
      },
      payload: { properties: { oid: { type: 'integer' }, pid: s }, required: ['oid', 'pid'] },
    },
  },
];
