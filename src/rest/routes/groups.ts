/** Legacy group routes (API document, "Groups"). */
import { ref } from '../../legacy/json-schemas.ts';
import type { LegacyGroupWithNamesFragment } from '../../legacy/operations.generated.ts';
import { groupNameParam } from '../api-schemas.ts';
import { type LegacyRoute, oneOf, pathId, type RequestParts, type Shaped } from '../route-table.ts';

/** A group as the operations select it: LegacyGroup, with its managers' names by `full` or always. */
type Group = Shaped<'GroupById'> | LegacyGroupWithNamesFragment;
/** The caller's groups, each with the caller's relations to it. */
type Relations = Shaped<'MyGroups'>;

/**
 * A group's legacy JSON: its fields in the order selected, the managers (`managers`,
 * `managerNames`: src/rest/operations/groups.graphql) as `gestionnaires` (oids) and
 * `gestionnairesNames`, in place.
 */
function group(fields: Group) {
  const legacy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries<unknown>(fields)) {
    // A field left out by @include is an undefined property under compiled execution.
    if (value === undefined || name === '__typename') continue;
    if (name === 'managers') legacy.gestionnaires = fields.managers.map((manager) => manager.person.oid);
    else if (name === 'managerNames')
      legacy.gestionnairesNames = fields.managerNames?.map((manager) => manager.person.label);
    else legacy[name] = value;
  }
  return legacy;
}
const byName = ({ params }: RequestParts) => ({ nom: params.nom });
/** `format=full` adds the managers' names; another format is the plain one, with a warning. */
const fullFormat = (parts: RequestParts) =>
  oneOf(parts, 'format', parts.query.format, ['full'], 'plain', 'the plain format (the default)') === 'full';
const nothing = () => ({});
/** Group list routes hide internal failures behind this message (API document, "Errors"). */
const listFailure = 'Impossible de récupérer les groupes';

/**
 * The API document says `ouvert` and `public` are "coerced to boolean". Legacy forms post "true",
 * "1", "on" or "false", "0", "": those are mapped; anything else goes to GraphQL as posted, which
 * rejects it (400).
 */
function legacyBoolean(value: unknown): unknown {
  if (value === true || value === 1 || value === '1' || value === 'true' || value === 'on') return true;
  if (value === false || value === 0 || value === '0' || value === 'false' || value === '' || value === null)
    return false;
  return value;
}

/** Legacy list entries: managed groups first, then member, then followed; each group once. */
function entries(relations: Relations, kinds: Array<'manager' | 'member' | 'follower'>) {
  const flag = { manager: 'admin', member: 'member', follower: 'follower' } as const;
  const listed = new Set<string>();
  const result: Record<string, unknown>[] = [];
  for (const kind of kinds) {
    for (const relation of relations) {
      if (!relation[kind] || listed.has(relation.group.nom)) continue;
      listed.add(relation.group.nom);
      result.push({ name: relation.group.nom, [flag[kind]]: true });
    }
  }
  return result;
}

const groupPayload = { ...ref('Group') };
const entryList = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      admin: { const: true },
      member: { const: true },
      follower: { const: true },
    },
    required: ['name'],
  },
};
const names = { type: 'array', items: { type: 'string' } };
const fullFormatQuery = {
  format: {
    enum: ['full'],
    description: 'adds the managers’ names; another value: the plain format, with a `Warning`',
  },
};
const formatIgnored = 'a `format` other than `full`';
const nameInvalid = [
  'Impossible de créer un groupe sans nom',
  'Le nom d’un groupe ne peut dépasser 200 caractères',
  'Nom de groupe invalide : <nom> (il faut au moins une lettre ou un chiffre)',
];
const groupList = (summary: string) => ({
  summary,
  payload: { properties: { groupes: { type: 'array', items: ref('Group') } }, required: ['groupes'] },
});

const groupListOptions = ['admin', 'membre', 'perso', 'suivis', 'ouverts', 'publics'].map(
  (list) => `/api/groupes/${list}`,
);

export const groupRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/groupe'],
    operation: 'SaveGroup',
    variables: ({ body }) => ({
      input: {
        oid: body.oid,
        nom: body.nom,
        description: body.description,
        ouvert: legacyBoolean(body.ouvert),
        public: legacyBoolean(body.public),
        newGestionnairePid: body.newGestionnairePid,
        newGestionnaireNom: body.newGestionnaireNom,
      },
    }),
    shape: group,
    doc: {
      summary: 'Create a group, or update it (with oid)',
      body: {
        type: 'object',
        properties: {
          oid: { type: 'integer', description: 'present: an update' },
          nom: {
            type: 'string',
            pattern: '[\\p{L}\\p{N}]',
            maxLength: 200,
            description: 'a letter or digit at least',
          },
          description: { type: 'string' },
          ouvert: {
            type: ['boolean', 'string'],
            description: 'anyone may join (true, 1, on / false, 0, "")',
          },
          public: { type: ['boolean', 'string'], description: 'anyone may follow' },
          newGestionnairePid: { type: 'string' },
          newGestionnaireNom: { type: 'string' },
        },
        required: ['nom'],
        examples: [{ nom: 'Mon groupe', ouvert: true, public: true }],
      },
      payload: groupPayload,
      invalid: nameInvalid,
    },
  },
  { method: 'options', paths: ['/api/groupe'], allowMethods: 'POST,OPTIONS' },
  {
    method: 'get',
    paths: ['/api/groupe/byId/:oid', '/api/groupe/:oid'],
    operation: 'GroupById',
    variables: (parts) => ({ oid: pathId(parts.params.oid), full: fullFormat(parts) }),
    shape: group,
    doc: {
      summary: 'A group by oid',
      params: {
        oid: {
          type: 'string',
          pattern: '^\\d+$',
          description: 'group oid; a segment that is not one names nothing (404)',
        },
      },
      query: fullFormatQuery,
      payload: groupPayload,
      ignored: formatIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/groupe/byNom/:nom'],
    operation: 'GroupByName',
    variables: (parts) => ({ nom: parts.params.nom, full: fullFormat(parts) }),
    shape: group,
    doc: {
      summary: 'A group by name',
      params: groupNameParam,
      query: fullFormatQuery,
      payload: groupPayload,
      ignored: formatIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/groupe/ajouter/:nom'],
    operation: 'CreateGroupFromName',
    changesState: true,
    variables: byName,
    shape: nothing,
    doc: {
      summary: 'Create a closed, public group from its name',
      params: groupNameParam,
      invalid: nameInvalid,
    },
  },
  {
    method: 'get',
    paths: ['/api/groupe/ignorer/:nom'],
    operation: 'IgnoreGroup',
    changesState: true,
    variables: byName,
    shape: nothing,
    doc: { summary: 'Stop following a group', params: groupNameParam },
  },
  {
    method: 'get',
    paths: ['/groupe/quitter/:nom', '/api/groupe/quitter/:nom'],
    operation: 'QuitGroup',
    changesState: true,
    variables: byName,
    shape: nothing,
    doc: { summary: 'Leave a group', params: groupNameParam },
  },
  {
    method: 'get',
    paths: ['/groupe/suivre/:nom', '/api/groupe/suivre/:nom'],
    operation: 'FollowGroup',
    changesState: true,
    variables: byName,
    shape: group,
    doc: { summary: 'Follow a public group', params: groupNameParam, payload: groupPayload },
  },
  {
    method: 'get',
    paths: ['/groupe/rejoindre/:nom', '/api/groupe/rejoindre/:nom'],
    operation: 'JoinGroup',
    changesState: true,
    variables: byName,
    shape: group,
    doc: { summary: 'Join an open group', params: groupNameParam, payload: groupPayload },
  },
  {
    method: 'delete',
    paths: ['/api/groupe/:nom'],
    operation: 'DeleteGroup',
    variables: byName,
    // `reponseDeleted.deleted` echoes the name as passed.
    shape: (_deleted, { params }) => ({ deleted: params.nom }),
    doc: { summary: 'Delete a group (managers only)', params: groupNameParam, payload: ref('Deleted') },
  },
  { method: 'options', paths: ['/api/groupe/:nom'], allowMethods: 'DELETE,OPTIONS' },
  {
    method: 'get',
    paths: ['/api/groupes/admin'],
    operation: 'MyGroups',
    shape: (relations) => ({ groupesAdmin: entries(relations, ['manager']) }),
    internalErrorMessage: listFailure,
    doc: {
      summary: 'Groups the caller manages',
      payload: { properties: { groupesAdmin: entryList }, required: ['groupesAdmin'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/groupes/membre'],
    operation: 'MyGroups',
    shape: (relations) => ({ groupesMembre: entries(relations, ['manager', 'member']) }),
    internalErrorMessage: listFailure,
    doc: {
      summary: 'Groups the caller manages or belongs to',
      payload: { properties: { groupesMembre: entryList }, required: ['groupesMembre'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/groupes/suivis'],
    operation: 'MyGroups',
    shape: (relations) => ({
      groupesSuivis: entries(relations, ['manager', 'member', 'follower']),
    }),
    internalErrorMessage: listFailure,
    doc: {
      summary: 'Groups the caller manages, belongs to or follows',
      payload: { properties: { groupesSuivis: entryList }, required: ['groupesSuivis'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/groupes/perso'],
    operation: 'MyGroups',
    shape: (relations) => ({
      groupes: Object.fromEntries(relations.map((r) => [r.group.nom, group(r.group)])),
      groupesAdmin: relations.filter((r) => r.manager).map((r) => r.group.nom),
      groupesMembre: relations.filter((r) => r.member).map((r) => r.group.nom),
      groupesSuivis: relations.filter((r) => r.follower).map((r) => r.group.nom),
    }),
    internalErrorMessage: listFailure,
    doc: {
      summary: 'Every group of the caller, by name, and the names by relation',
      payload: {
        properties: {
          groupes: { type: 'object', additionalProperties: ref('Group') },
          groupesAdmin: names,
          groupesMembre: names,
          groupesSuivis: names,
        },
        required: ['groupes', 'groupesAdmin', 'groupesMembre', 'groupesSuivis'],
      },
    },
  },
  {
    method: 'get',
    paths: ['/api/groupes/ouverts'],
    operation: 'OpenGroups',
    shape: (groups) => ({ groupes: groups.map(group) }),
    internalErrorMessage: listFailure,
    doc: groupList('Open groups'),
  },
  {
    method: 'get',
    paths: ['/api/groupes/publics'],
    operation: 'PublicGroups',
    shape: (groups) => ({ groupes: groups.map(group) }),
    internalErrorMessage: listFailure,
    doc: groupList('Public groups'),
  },
  { method: 'options', paths: groupListOptions, allowMethods: 'GET,OPTIONS' },
];
