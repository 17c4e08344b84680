/** Legacy routes of persons and sessions. */
import { ref } from '../../legacy/json-schemas.ts';
import { type LegacyRoute, type RequestParts, text } from '../route-table.ts';

const s = { type: 'string' };
const origine = { type: 'string', minLength: 1, description: 'base URL of a configured lab' };
const token = { type: 'string', minLength: 1, description: 'the lab’s token for the user' };
const loginFields = {
  type: 'object',
  description: 'or the same in the query string',
  properties: { origine, token },
  required: ['origine', 'token'],
};
/** The query string of `POST /api/connexion`: read for what the body does not hold. */
const loginQuery = { origine, token };
const loginInvalid = ['token ou origine manquant'];
/** A value with a character other than a space (the service trims before checking). */
const notBlank = { type: 'string', pattern: '\\S' };

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

const int = { type: 'integer' };
const date = { type: 'string', format: 'date-time' };
const orNull = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type, 'null'] });
/** An object schema whose every property is required. */
const record = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});
const list = (items: Record<string, unknown>) => ({ type: 'array', items });
const exportedGroup = record({ oid: int, nom: s, since: orNull(date), position: orNull(int) });
const exportedResource = record({ oid: int, rid: s, titre: s, type: s, position: orNull(int) });

/** The personal data export (docs/privacy.md "Export"): the GraphQL document as it is. */
const personalDataExport = record({
  format: s,
  generatedAt: date,
  person: record({
    oid: int,
    pid: s,
    nom: s,
    prenom: s,
    email: orNull(s),
    createdAt: date,
    updatedAt: date,
    lastLoginAt: orNull(date),
  }),
  roles: list(record({ role: s, source: s, grantedAt: date, active: { type: 'boolean' } })),
  groups: record({
    managed: list(exportedGroup),
    member: list(exportedGroup),
    followed: list(exportedGroup),
  }),
  resources: record({
    authored: list(exportedResource),
    contributed: list(exportedResource),
    parentAuthored: list(exportedResource),
    mentioned: list(exportedResource),
  }),
  resourceArchives: list(record({ oid: int, resourceOid: int, rid: s, version: int, archivedAt: date })),
  sessions: list(record({ digest: s, expiresAt: date, labBaseId: orNull(s) })),
  auditEntries: list(
    record({
      id: int,
      at: date,
      asActor: { type: 'boolean' },
      asSubject: { type: 'boolean' },
      actorKind: s,
      actorPid: orNull(s),
      action: s,
      entityKind: s,
      entityId: int,
      changes: { type: ['object', 'null'] },
    }),
  ),
  peerNotifications: list(
    record({ id: s, kind: s, peerBaseId: s, status: s, createdAt: date, payload: { type: 'object' } }),
  ),
});

export const personRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/connexion'],
    operation: 'Login',
    variables: (r) => ({ origine: fromBodyOrQuery(r, 'origine'), token: fromBodyOrQuery(r, 'token') }),
    doc: {
      summary: 'Log a lab user in (opens a session)',
      body: loginFields,
      query: loginQuery,
      invalid: loginInvalid,
    },
  },
  {
    method: 'get',
    paths: ['/api/connexion'],
    operation: 'Login',
    changesState: true,
    variables: (r) => ({ origine: fromBodyOrQuery(r, 'origine'), token: fromBodyOrQuery(r, 'token') }),
    doc: {
      summary: 'Log a lab user in, with query parameters',
      query: { origine: { ...origine, required: true }, token: { ...token, required: true } },
      invalid: loginInvalid,
    },
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
          pid: {
            ...s,
            pattern: '^\\s*[^/\\s][^/]*/',
            description:
              'origine/idOrigine (text before and after a `/`); the person is created when unknown',
          },
          nom: s,
          prenom: s,
          email: { ...s, format: 'email' },
          roles: {
            type: 'array',
            items: s,
            description:
              'roles of the configuration (`roles`) given to the person by the development login; they grant nothing once it is off',
          },
        },
        required: ['pid'],
        examples: [{ pid: 'dev/alice', roles: ['formateur'] }],
      },
      invalid: [
        'pid : de la forme origine/id, par exemple dev/alice',
        'email invalide',
        'Rôle <rôle> inconnu (rôles connus : <rôles>)',
      ],
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
      query: {
        pid: { ...notBlank, required: true, examples: ['sesalab/1'] },
        nom: { ...notBlank, required: true, description: 'family name', examples: ['Dupont'] },
      },
      invalid: ['pid manquant', 'nom manquant'],
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
        description: '`origine/idOrigine` (the pid) has at most 255 characters',
        properties: {
          origine: { ...s, pattern: '^[^/]*\\S[^/]*$', description: 'no `/`' },
          idOrigine: { type: ['string', 'number'], pattern: '\\S' },
          nom: notBlank,
          prenom: notBlank,
          email: { ...s, format: 'email' },
          roles: {
            description: 'role names, or `{<role>: true|false}`',
            anyOf: [
              { type: 'array', items: s },
              { type: 'object', additionalProperties: { type: 'boolean' } },
            ],
          },
        },
        required: ['origine', 'idOrigine', 'nom', 'prenom'],
        examples: [{ origine: 'sesalab', idOrigine: '42', nom: 'Dupont', prenom: 'Anne' }],
      },
      invalid: [
        'origine manquant',
        'origine ne doit pas contenir de /',
        'idOrigine manquant',
        'nom manquant',
        'prenom manquant',
        'email invalide',
        'pid (origine/idOrigine) : au plus 255 caractères',
        'Rôle <rôle> inconnu (rôles connus : <rôles>)',
      ],
      payload: { properties: { oid: { type: 'integer' }, pid: s }, required: ['oid', 'pid'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/personne/export'],
    operation: 'PersonalDataExport',
    variables: ({ query }) => ({ pid: text(query.pid) }),
    shape: ({ __typename, ...document }) => document,
    doc: {
      summary: 'Everything the service holds about a person (GDPR access and portability)',
      description:
        'Without `pid`, the caller’s own data (a session person; an API token must give `pid`). Another person’s needs the permission `managePersonalData` (administrators, API tokens). The document is described in docs/privacy.md, "Export".',
      query: {
        pid: { ...notBlank, description: 'the person’s pid; absent: the caller', examples: ['sesalab/1'] },
      },
      invalid: ['pid vide'],
      payload: personalDataExport,
    },
  },
];
