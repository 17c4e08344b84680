/**
 * The Pothos schema builder: plugins, context and scope types, Prisma wiring. It defines no types;
 * domain modules do (src/modules/<domain>/<domain>.schema.ts).
 *
 * Every root field must declare `authScopes` (test/schema/auth-scopes.test.ts enforces it):
 * - `public`: anyone, including anonymous callers;
 * - `person`: a session person;
 * - `allRights`: an API-token caller, or a role granting all rights;
 * - `permission`: a person (or token caller) holding a generic permission.
 */
import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import SimpleObjectsPlugin from '@pothos/plugin-simple-objects';
import { hasPermission } from '../auth/viewer.ts';
import type { Context } from '../context.ts';
import { db } from '../db/client.ts';
import { deniedError } from '../errors.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { Permission } from '../permissions.ts';

export interface AuthScopes {
  public: boolean;
  person: boolean;
  allRights: boolean;
  permission: Permission;
}

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthScopes: AuthScopes;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  // scope-auth first, so that authorisation runs before anything else touches the field.
  plugins: [ScopeAuthPlugin, ErrorsPlugin, RelayPlugin, PrismaPlugin, SimpleObjectsPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (context) => ({
      public: true,
      person: context.viewer.person !== null,
      allRights: context.viewer.allRights,
      permission: (permission: Permission) => hasPermission(context.viewer, permission),
    }),
    unauthorizedError: (_parent, context) => deniedError(context.viewer),
  },
  errors: { defaultTypes: [], directResult: true },
  // Cursor connections only: no global `node`/`nodes` fields (each would need its own auth scope).
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  prisma: {
    client: () => db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    // A query planned and never used is a wasted one, or a resolver that should plan it only when
    // it reads (Viewer.person): an error in the suite, where it is seen and fixed, rather than a
    // console line outside the JSON log of a running service, where nobody acts on it.
    onUnusedQuery: process.env.NODE_ENV === 'test' ? 'error' : null,
  },
});

builder.queryType({
  description: 'Reads. Each field says who may call it; REST `GET` routes run these (src/rest/operations/).',
});
builder.mutationType({
  description:
    'Changes. A browser session must send them from this site or a configured lab (see README, Security).',
});

/** The builder's types, for helpers that take a field builder (`t`) of their own. */
export type BuilderTypes =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
