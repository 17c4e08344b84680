/**
 * GraphQL: the viewer (who is calling, with login links for front ends) and the login / logout
 * mutations.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Viewer } from '../../auth/viewer.ts';
import type { Config } from '../../config.ts';
import {
  DevLoginUnavailableError,
  InvalidInputError,
  LabLoginRejectedError,
  LabNotAllowedError,
  UpstreamError,
} from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { PersonType } from '../persons/persons.schema.ts';
import { type PersonQuery, viewerPerson } from '../persons/persons.service.ts';
import { devLogin } from './dev-login.service.ts';
import { loginWithLab, logout } from './lab-login.service.ts';

interface LinkShape {
  href: string;
  icon: string;
  value: string;
}

const LinkType = builder.simpleObject('Link', {
  description: 'A link for a menu: a lab to log in through, or the lab of the session.',
  fields: (t) => ({
    href: t.string({ description: 'Where it leads.' }),
    icon: t.string({ description: 'Icon name: `login` or `lab`.' }),
    value: t.string({ description: 'Text to show: the lab’s name (or baseId).' }),
  }),
});

const SsoType = builder.simpleObject('Sso', {
  description: 'The lab the viewer logged in through (empty name and links otherwise).',
  fields: (t) => ({
    name: t.string({ description: 'The lab’s name (or baseId); empty without a lab.' }),
    links: t.field({ type: [LinkType], description: 'A link back to the lab.' }),
  }),
});

const ViewerKindEnum = builder.enumType('ViewerKind', {
  description: 'How the caller is known.',
  values: {
    anonymous: { description: 'Nobody logged in.' },
    person: { description: 'A person with a session (lab login, or development login).' },
    token: { description: 'An API token (`X-ApiToken`): all rights.' },
  } as const,
});

function labLink(lab: Config['labs'][number], icon: string): LinkShape {
  return { href: lab.baseUrl, icon, value: lab.name ?? lab.baseId };
}

export const ViewerType = builder.objectRef<Viewer>('Viewer').implement({
  description: 'The caller of the request. REST: `GET /api/personne/me` and `/api/session`.',
  fields: (t) => ({
    kind: t.field({
      description: 'How the caller is known.',
      type: ViewerKindEnum,
      resolve: (viewer) => viewer.kind,
    }),
    authenticated: t.boolean({
      description: 'A person is logged in.',
      resolve: (viewer) => viewer.person !== null,
    }),
    allRights: t.exposeBoolean('allRights', {
      description: 'All rights: an API token, or a role granting `allRights`.',
    }),
    permissions: t.stringList({
      description: 'Generic permissions granted by the roles, sorted.',
      resolve: (viewer) => [...viewer.permissions].sort(),
    }),
    person: t.field({
      description: 'The logged-in person, if any.',
      type: PersonType,
      nullable: true,
      // Not a prismaField: that plans a query before the resolver runs, which an anonymous or token
      // caller (no person) would leave unused, and plugin-prisma reports every such query.
      resolve: (viewer, _args, context, info) =>
        viewerPerson(viewer, () => queryFromInfo({ context, info, typeName: 'Person' }) as PersonQuery),
    }),
    sso: t.field({
      description: 'The lab the session came from.',
      type: SsoType,
      resolve: (viewer, _args, context) => {
        const lab = context.config.labs.find((l) => l.baseId === viewer.labBaseId);
        return lab ? { name: lab.name ?? lab.baseId, links: [labLink(lab, 'lab')] } : { name: '', links: [] };
      },
    }),
    logoutUrl: t.string({
      description: 'Where to log out (REST), when a person is logged in.',
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
    args: {
      origine: t.arg.string({ description: 'The lab’s baseUrl (or baseId).' }),
      token: t.arg.string({ description: 'The one-time token the lab gave the user.' }),
    },
    resolve: (_root, args, context) => loginWithLab(context, args.origine, args.token),
  }),
  devLogin: t.field({
    type: ViewerType,
    description:
      'Development only (configuration `devLogin: true` or `DEV_LOGIN=1`, never in production): logs in `pid`, creating the person, with `roles` granted by the development login (they grant nothing once it is off). Answers callers on this machine only unless `devLoginAllowRemote`. DEV_LOGIN_OFF or DEV_LOGIN_REMOTE otherwise, with how to turn it on.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, DevLoginUnavailableError] },
    args: {
      pid: t.arg.string({ description: 'The person’s pid (`origin/id`); created when unknown.' }),
      nom: t.arg.string({ description: 'Family name, for a new person.' }),
      prenom: t.arg.string({ description: 'Given name, for a new person.' }),
      email: t.arg.string({ description: 'E-mail, for a new person.' }),
      roles: t.arg.stringList({
        description: 'Roles to grant (replace those the development login granted before; others stay).',
      }),
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
