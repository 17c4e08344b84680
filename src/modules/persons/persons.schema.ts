/** GraphQL: the Person type, person queries and `addPerson`. */
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { roleSourceGrants } from '../../permissions.ts';
import { canSeePrivateFields } from './persons.policy.ts';
import { addPerson, findByPid, findByPidAndName } from './persons.service.ts';

const privateField = {
  authScopes: (
    person: { oid: number },
    _args: unknown,
    context: { viewer: Parameters<typeof canSeePrivateFields>[0] },
  ) => canSeePrivateFields(context.viewer, person.oid),
  // Others simply do not see these fields: null rather than an error.
  unauthorizedResolver: () => null,
} as const;

export const PersonType = builder.prismaObject('Person', {
  description:
    'A person: a user of a lab, or created by an administrator. Private fields are null for others.',
  // What every person comes with (a resource's authors and a group's managers carry only this
  // summary): read off the parent, never loaded again (an exposed field would be, for a parent
  // Prisma did not load). Each other field selects what it reads, loaded only when asked for.
  select: { oid: true, pid: true, nom: true, prenom: true },
  fields: (t) => ({
    oid: t.int({ description: 'Id of the person here.', resolve: (p) => p.oid }),
    pid: t.string({ description: 'Id across services: `origin/id`.', resolve: (p) => p.pid }),
    nom: t.string({ description: 'Family name.', resolve: (p) => p.nom }),
    prenom: t.string({ description: 'Given name.', resolve: (p) => p.prenom }),
    /**
     * "Prénom Nom", as legacy lists show authors and managers. From the row's own columns, with no
     * selection of its own, so that a person known by its summary (a resource's author) needs no query.
     */
    label: t.string({
      description: '"Prénom Nom", as legacy lists show authors and managers.',
      resolve: (p) => `${p.prenom} ${p.nom}`.trim(),
    }),
    email: t.string({
      description: 'E-mail (the person and all-rights callers only).',
      ...privateField,
      nullable: true,
      select: { email: true },
      resolve: (p) => p.email,
    }),
    roles: t.stringList({
      description: 'Roles, sorted (the person and all-rights callers only).',
      ...privateField,
      nullable: true,
      select: { roles: { select: { role: true, source: true }, orderBy: { role: 'asc' } } },
      resolve: (p, _args, context) =>
        p.roles.filter((r) => roleSourceGrants(r.source, context.config)).map((r) => r.role),
    }),
    groupesMembre: t.stringList({
      description: 'Names of the groups the person belongs to (private).',
      ...privateField,
      nullable: true,
      select: {
        memberGroups: { select: { group: { select: { nom: true } } }, orderBy: { group: { nom: 'asc' } } },
      },
      resolve: (p) => p.memberGroups.map((m) => m.group.nom),
    }),
    groupesSuivis: t.stringList({
      description: 'Names of the groups the person follows (private).',
      ...privateField,
      nullable: true,
      select: {
        followedGroups: { select: { group: { select: { nom: true } } }, orderBy: { group: { nom: 'asc' } } },
      },
      resolve: (p) => p.followedGroups.map((f) => f.group.nom),
    }),
    groupesAdmin: t.stringList({
      description: 'Names of the groups the person manages (private).',
      ...privateField,
      nullable: true,
      select: {
        managedGroups: { select: { group: { select: { nom: true } } }, orderBy: { group: { nom: 'asc' } } },
      },
      resolve: (p) => p.managedGroups.map((m) => m.group.nom),
    }),
  }),
});

const AddPersonInputType = builder.inputType('AddPersonInput', {
  description:
    'A person to create or update (REST: the body of `POST /api/personne/add`). Fields are validated by the ' +
    'service (so that REST callers get its messages).',
  fields: (t) => ({
    origine: t.string({ description: 'The origin (lab baseId) of the pid.', required: false }),
    idOrigine: t.string({ description: 'The id in that origin.', required: false }),
    nom: t.string({ description: 'Family name.', required: false }),
    prenom: t.string({ description: 'Given name.', required: false }),
    email: t.string({ description: 'E-mail.', required: false }),
    roles: t.stringList({ description: 'Roles to grant.', required: false }),
  }),
});

builder.queryFields((t) => ({
  person: t.field({
    type: PersonType,
    description: 'A person by pid.',
    authScopes: { person: true, allRights: true },
    errors: { types: [NotFoundError] },
    args: { pid: t.arg.string({ description: 'The person’s pid.', required: true }) },
    resolve: (_root, args) => findByPid(args.pid),
  }),
  personByPidAndName: t.field({
    type: PersonType,
    description: 'The person whose pid and family name both match (legacy `personne/checkPid`).',
    authScopes: { person: true, allRights: true },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: {
      pid: t.arg.string({ description: 'The pid.' }),
      nom: t.arg.string({ description: 'The family name.' }),
    },
    resolve: (_root, args, context) => findByPidAndName(context, args.pid, args.nom),
  }),
}));

builder.mutationFields((t) => ({
  addPerson: t.field({
    type: PersonType,
    description: 'Creates or updates a person (pid `origine/idOrigine`). All rights only.',
    authScopes: { allRights: true },
    errors: { types: [InvalidInputError] },
    args: { input: t.arg({ description: 'The person.', type: AddPersonInputType, required: true }) },
    resolve: (_root, args, context) => addPerson(args.input, context.config),
  }),
}));
