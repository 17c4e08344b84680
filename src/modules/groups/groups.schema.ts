/** GraphQL: the Group type, group queries and the membership transitions. */
import { wrapErrorIfMatches } from '@pothos/plugin-errors';
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Context } from '../../context.ts';
import type { Group } from '../../db/client.ts';
import { deniedError, ForbiddenError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { errorType } from '../../graphql/errors.ts';
import { auditActor } from '../audit/audit.service.ts';
import { PersonType } from '../persons/persons.schema.ts';
import {
  GroupNameTakenError,
  GroupNotFoundError,
  InvalidGroupNameError,
  ManagerNotFoundError,
  NotInGroupError,
} from './groups.errors.ts';
import {
  createGroup,
  createGroupFromName,
  deleteGroup,
  findGroup,
  findGroupByName,
  followGroup,
  type GroupQuery,
  type GroupRelation,
  ignoreGroup,
  joinGroup,
  listGroups,
  quitGroup,
  saveGroup,
  updateGroup,
  viewerGroups,
} from './groups.service.ts';

errorType(GroupNotFoundError);
errorType(GroupNameTakenError);
errorType(InvalidGroupNameError);
errorType(ManagerNotFoundError);
errorType(NotInGroupError);

// One planned selection for every group of a list; the person summary answers pid and label.
const managersSelection = {
  managers: {
    select: { personOid: true, person: { select: { oid: true, pid: true, nom: true, prenom: true } } },
    orderBy: { position: 'asc' },
  },
} as const;

interface GroupManagerShape {
  position: number;
  person: { oid: number; pid: string; nom: string; prenom: string };
}

const GroupManagerType = builder.objectRef<GroupManagerShape>('GroupManager').implement({
  description: 'A manager of a group, with its rank.',
  fields: (t) => ({
    position: t.exposeInt('position', { description: 'Rank in the order managers were added, from 0.' }),
    // The summary holds oid, pid and names; other person fields are loaded when asked.
    person: t.field({
      type: PersonType,
      description: 'The person.',
      resolve: ({ person }) => person,
    }),
  }),
});

export const GroupType = builder.prismaObject('Group', {
  description: 'A group of persons: its members may read resources shared with it, its managers change it.',
  // What every group comes with (a resource's groups carry only this summary): read off the
  // parent, never loaded again. Each other field selects what it reads, loaded only when asked for.
  select: { oid: true, nom: true },
  fields: (t) => ({
    oid: t.int({ description: 'Id of the group.', resolve: (group) => group.oid }),
    nom: t.string({
      description: 'Name, unique whatever the case, accents and punctuation.',
      resolve: (group) => group.nom,
    }),
    description: t.string({
      description: 'Description.',
      select: { description: true },
      resolve: (group) => group.description,
    }),
    ouvert: t.boolean({
      description: 'Open group: anyone may join.',
      select: { ouvert: true },
      resolve: (g) => g.ouvert,
    }),
    public: t.boolean({
      description: 'Public group: anyone may follow.',
      select: { public: true },
      resolve: (group) => group.public,
    }),
    dateCreation: t.field({
      description: 'Creation time.',
      type: 'DateTime',
      select: { createdAt: true },
      resolve: (group) => group.createdAt,
    }),
    managers: t.field({
      type: [GroupManagerType],
      description:
        'The managers, in the order they were added. REST: `gestionnaires` (their oids), `gestionnairesNames` ' +
        '(their names).',
      select: managersSelection,
      resolve: (group) => group.managers.map(({ person }, position) => ({ position, person })),
    }),
  }),
});

export const GroupRelationType = builder.objectRef<GroupRelation<Group>>('GroupRelation').implement({
  description: 'A group the viewer manages, belongs to or follows.',
  fields: (t) => ({
    group: t.field({ description: 'The group.', type: GroupType, resolve: (relation) => relation.group }),
    manager: t.exposeBoolean('manager', { description: 'The viewer manages it.' }),
    member: t.exposeBoolean('member', { description: 'The viewer belongs to it.' }),
    follower: t.exposeBoolean('follower', { description: 'The viewer follows it.' }),
  }),
});

const DeletedGroupType = builder.simpleObject('DeletedGroup', {
  description: 'A group that was deleted.',
  fields: (t) => ({
    oid: t.int({ description: 'The oid the group had.' }),
    nom: t.string({ description: 'The name the group had.' }),
  }),
});

const SaveGroupInputType = builder.inputType('SaveGroupInput', {
  description:
    'A group to create or update (REST: the body of `POST /api/groupe`). Flags and description are written ' +
    'only when given. The service validates the name.',
  fields: (t) => ({
    oid: t.int({ required: false, description: 'Present: update this group. Absent: create one.' }),
    nom: t.string({ description: 'Name (required to create; renames on update).', required: false }),
    description: t.string({ description: 'Description.', required: false }),
    ouvert: t.boolean({ description: 'Open: anyone may join.', required: false }),
    public: t.boolean({ description: 'Public: anyone may follow.', required: false }),
    newGestionnairePid: t.string({
      description: 'Pid of a person to add as a manager (with `newGestionnaireNom`).',
      required: false,
    }),
    newGestionnaireNom: t.string({ description: 'Family name of that person, as a check.', required: false }),
  }),
});

/**
 * Creating a group needs a person (its first manager) holding `createGroupe`, declared in the auth
 * scopes so that the schema shows it. Denied as before the scope existed: without a person, the
 * builder's 401 or 403 error; a person without the permission gets the ForbiddenError member the
 * service returned.
 */
const createGroupScopes = {
  authScopes: { $all: { person: true, permission: 'createGroupe' } },
  unauthorizedResolver: (_parent: unknown, _args: unknown, context: Context) => {
    if (context.viewer.person === null) throw deniedError(context.viewer);
    // Wrapped as the errors plugin wraps what a resolver throws: a member of the result union.
    return wrapErrorIfMatches(new ForbiddenError(), [ForbiddenError]) as never;
  },
} as const;

const writeErrors = [
  ForbiddenError,
  GroupNotFoundError,
  GroupNameTakenError,
  InvalidGroupNameError,
  ManagerNotFoundError,
];

builder.queryFields((t) => ({
  group: t.field({
    type: GroupType,
    description: 'A group by oid.',
    authScopes: { public: true },
    errors: { types: [GroupNotFoundError] },
    args: { oid: t.arg.int({ description: 'The group’s oid.', required: true }) },
    resolve: (_root, args, context, info) =>
      findGroup(args.oid, queryFromInfo({ context, info, typeName: 'Group' }) as GroupQuery),
  }),
  groupByName: t.field({
    type: GroupType,
    description: 'A group by name; equivalent spellings (case, accents, punctuation) find it too.',
    authScopes: { public: true },
    errors: { types: [GroupNotFoundError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: (_root, args, context, info) =>
      findGroupByName(args.nom, queryFromInfo({ context, info, typeName: 'Group' }) as GroupQuery),
  }),
  myGroups: t.field({
    type: [GroupRelationType],
    description: 'Every group the viewer manages, belongs to or follows, by name.',
    authScopes: { person: true },
    resolve: (_root, _args, context, info) =>
      viewerGroups(
        context.viewer,
        queryFromInfo({ context, info, path: ['group'], select: { oid: true } }) as GroupQuery,
      ),
  }),
  openGroups: t.prismaField({
    type: ['Group'],
    description: 'Groups anyone may join.',
    authScopes: { person: true },
    resolve: (query) => listGroups('ouvert', query),
  }),
  publicGroups: t.prismaField({
    type: ['Group'],
    description: 'Groups anyone may follow.',
    authScopes: { person: true },
    resolve: (query) => listGroups('public', query),
  }),
}));

// A group itself: created, changed (managers only) or deleted.
builder.mutationFields((t) => ({
  saveGroup: t.field({
    type: GroupType,
    description: 'Legacy `POST /api/groupe`: update when `oid` is given, create otherwise.',
    authScopes: { person: true },
    errors: { types: writeErrors },
    args: {
      input: t.arg({
        description: 'The group: `oid` to update, nothing to create.',
        type: SaveGroupInputType,
        required: true,
      }),
    },
    resolve: (_root, args, context) => saveGroup(context.viewer, args.input, auditActor(context)),
  }),
  createGroup: t.field({
    type: GroupType,
    description:
      'Creates a group; the creator becomes its sole manager, a member and a follower. Needs the ' +
      '`createGroupe` permission. REST: `POST /api/groupe` without `oid`.',
    ...createGroupScopes,
    errors: { types: writeErrors },
    args: {
      input: t.arg({
        description: 'The group (`oid` is ignored).',
        type: SaveGroupInputType,
        required: true,
      }),
    },
    resolve: (_root, args, context) =>
      createGroup(context.viewer, { ...args.input, oid: null }, auditActor(context)),
  }),
  updateGroup: t.field({
    type: GroupType,
    description: 'Updates a group (managers only): flags, description, rename, one more manager.',
    authScopes: { person: true },
    errors: { types: writeErrors },
    args: {
      oid: t.arg.int({ description: 'The group to update.', required: true }),
      input: t.arg({ description: 'What to change.', type: SaveGroupInputType, required: true }),
    },
    resolve: (_root, args, context) => updateGroup(context.viewer, args.oid, args.input, auditActor(context)),
  }),
  createGroupFromName: t.field({
    type: GroupType,
    description:
      'A closed, public group from its name alone; needs the `createGroupe` permission. REST: ' +
      '`GET /api/groupe/ajouter/:nom`.',
    ...createGroupScopes,
    errors: { types: writeErrors },
    args: { nom: t.arg.string({ description: 'The name.', required: true }) },
    resolve: (_root, args, context) => createGroupFromName(context.viewer, args.nom, auditActor(context)),
  }),
  deleteGroup: t.field({
    type: DeletedGroupType,
    description: 'Deletes a group (managers only).',
    authScopes: { person: true },
    errors: { types: [ForbiddenError, GroupNotFoundError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: async (_root, args, context) => {
      const { oid, nom } = await deleteGroup(context.viewer, args.nom, auditActor(context));
      return { oid, nom };
    },
  }),
}));

// The viewer's own ties to a group: joining and following it, and undoing either.
builder.mutationFields((t) => ({
  joinGroup: t.field({
    type: GroupType,
    description: 'Joins a group that is open, or that the viewer already belongs to or manages.',
    authScopes: { person: true },
    errors: { types: [ForbiddenError, GroupNotFoundError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: (_root, args, context) => joinGroup(context.viewer, args.nom),
  }),
  followGroup: t.field({
    type: GroupType,
    description: 'Follows a group that is public, or that the viewer manages.',
    authScopes: { person: true },
    errors: { types: [ForbiddenError, GroupNotFoundError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: (_root, args, context) => followGroup(context.viewer, args.nom),
  }),
  quitGroup: t.field({
    type: GroupType,
    description: 'Leaves the members of a group (a manager stays a manager).',
    authScopes: { person: true },
    errors: { types: [GroupNotFoundError, NotInGroupError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: (_root, args, context) => quitGroup(context.viewer, args.nom),
  }),
  ignoreGroup: t.field({
    type: GroupType,
    description: 'Stops following a group.',
    authScopes: { person: true },
    errors: { types: [GroupNotFoundError, NotInGroupError] },
    args: { nom: t.arg.string({ description: 'The group’s name.', required: true }) },
    resolve: (_root, args, context) => ignoreGroup(context.viewer, args.nom),
  }),
}));
