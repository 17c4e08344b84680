/**
 * GraphQL: the viewer (who is calling, with login links for front ends) and the login / logout
 * mutations.
 */
import type { Viewer } from '../../auth/viewer.ts';
import type { Config } from '../../config.ts';
import { db } from '../../db/client.ts';
import {
  InvalidInputError,
  LabLoginRejectedError,
  LabNotAllowedError,
  NotFoundError,
  UpstreamError,
} from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { PersonType } from '../persons/persons.schema.ts';
import { devLogin } from './dev-login.service.ts';
import { loginWithLab, logout } from './lab-login.service.ts';

interface LinkShape {
  href: string;
  icon: string;
  value: string;
}

const LinkType = builder.simpleObject('Link', {
  fields: (t) => ({ href: t.string(), icon: t.string(), value: t.string() }),
});

const SsoType = builder.simpleObject('Sso', {
  description: 'The lab the viewer logged in through (empty name and links otherwise).',
  fields: (t) => ({ name: t.string(), links: t.field({ type: [LinkType] }) }),
});

const ViewerKindEnum = builder.enumType('ViewerKind', { values: ['anonymous', 'person', 'token'] as const });

function labLink(lab: Config['labs'][number], icon: string): LinkShape {
  return { href: lab.baseUrl, icon, value: lab.name ?? lab.baseId };
}

export const ViewerType = builder.objectRef<Viewer>('Viewer').implement({
  fields: (t) => ({
    kind: t.field({ type: ViewerKindEnum, resolve: (viewer) => viewer.kind }),
    authenticated: t.boolean({ resolve: (viewer) => viewer.person !== null }),
    allRights: t.exposeBoolean('allRights'),
    permissions: t.stringList({ resolve: (viewer) => [...viewer.permissions].sort() }),
    person: t.prismaField({
      type: PersonType,
      nullable: true,
      resolve: (query, viewer) =>
        viewer.person ? db.person.findUnique({ ...query, where: { oid: viewer.person.oid } }) : null,
    }),
    sso: t.field({
      type: SsoType,
      resolve: (viewer, _args, context) => {
        const lab = context.config.labs.find((l) => l.baseId === viewer.labBaseId);
        return lab ? { name: lab.name ?? lab.baseId, links: [labLink(lab, 'lab')] } : { name: '', links: [] };
      },
    }),
    logoutUrl: t.string({
      nullable: true,
      resolve: (viewer, _args, context) =>
        viewer.person ? `${context.config.baseUrl}api/deconnexion` : null,
    }),
    loginLinks: t.field({
      type: [LinkType],
      description: 'Where an anonymous viewer can log in: the configured labs.',
      resolve: (viewer, _args, context) =>
        viewer.person ? [] : context.config.labs.map((lab) => labLink(lab, 'login')),
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerType,
    description: 'Who is calling: anonymous, a session person, or an API-token caller.',
    authScopes: { public: true },
    resolve: (_root, _args, context) => context.viewer,
  }),
}));

builder.mutationFields((t) => ({
  login: t.field({
    type: ViewerType,
    description: 'Logs a lab user in: the lab at `origine` must vouch for `token`. Starts a new session.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, LabNotAllowedError, LabLoginRejectedError, UpstreamError] },
    args: { origine: t.arg.string(), token: t.arg.string() },
    resolve: (_root, args, context) => loginWithLab(context, args.origine, args.token),
  }),
  devLogin: t.field({
    type: ViewerType,
    description:
      'Development only (configuration `devLogin: true`, never in production): logs in `pid`, creating the person, with the administrator-granted `roles` given. NOT_FOUND when switched off.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: {
      pid: t.arg.string(),
      nom: t.arg.string(),
      prenom: t.arg.string(),
      email: t.arg.string(),
      roles: t.arg.stringList(),
    },
    resolve: (_root, args, context) => devLogin(context, args),
  }),
  logout: t.field({
    type: ViewerType,
    description: 'Ends the session (a no-op for anonymous callers).',
    authScopes: { public: true },
    resolve: (_root, _args, context) => logout(context),
  }),
}));
