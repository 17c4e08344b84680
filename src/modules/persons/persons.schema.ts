/** GraphQL: the Person type, person queries and `addPerson`. */
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
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
  fields: (t) => ({
    oid: t.exposeInt('oid'),
    pid: t.exposeString('pid'),
    nom: t.exposeString('nom'),
    prenom: t.exposeString('prenom'),
    /**
     * "Prénom Nom", as legacy lists show authors and managers. From the row's own columns, with no
     * selection of its own, so that a person known by its summary (a resource's author) needs no query.
     */
    label: t.string({ resolve: (p) => `${p.prenom} ${p.nom}`.trim() }),
    email: t.string({ ...privateField, nullable: true, select: { email: true }, resolve: (p) => p.email }),
    roles: t.stringList({
      ...privateField,
      nullable: true,
      select: { roles: { select: { role: true }, orderBy: { role: 'asc' } } },
      resolve: (p) => p.roles.map((r) => r.role),
    }),
    groupesMembre: t.stringList({
      ...privateField,
      nullable: true,
      select: {
        memberGroups: { select: { group: { select: { nom: true } } }, orderBy: { group: { nom: 'asc' } } },
      },
      resolve: (p) => p.memberGroups.map((m) => m.group.nom),
    }),
    groupesSuivis: t.stringList({
      ...privateField,
      nullable: true,
      select: {
        followedGroups: { select: { group: { select: { nom: true } } }, orderBy: { group: { nom: 'asc' } } },
      },
      resolve: (p) => p.followedGroups.map((f) => f.group.nom),
    }),
    groupesAdmin: t.stringList({
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
  description: 'Fields are validated by the service (so that REST callers get its messages).',
  fields: (t) => ({
    origine: t.string({ required: false }),
    idOrigine: t.string({ required: false }),
    nom: t.string({ required: false }),
    prenom: t.string({ required: false }),
    email: t.string({ required: false }),
    roles: t.stringList({ required: false }),
  }),
});

builder.queryFields((t) => ({
  person: t.field({
    type: PersonType,
    description: 'A person by pid.',
    authScopes: { person: true, allRights: true },
    errors: { types: [NotFoundError] },
    args: { pid: t.arg.string({ required: true }) },
    resolve: (_root, args) => findByPid(args.pid),
  }),
  personByPidAndName: t.field({
    type: PersonType,
    description: 'The person whose pid and family name both match (legacy `personne/checkPid`).',
    authScopes: { person: true, allRights: true },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: { pid: t.arg.string(), nom: t.arg.string() },
    resolve: (_root, args, context) => findByPidAndName(context, args.pid, args.nom),
  }),
}));

builder.mutationFields((t) => ({
  addPerson: t.field({
    type: PersonType,
    description: 'Creates or updates a person (pid `origine/idOrigine`). All rights only.',
    authScopes: { allRights: true },
    errors: { types: [InvalidInputError] },
    args: { input: t.arg({ type: AddPersonInputType, required: true }) },
    resolve: (_root, args, context) => addPerson(args.input, context.config),
  }),
}));
