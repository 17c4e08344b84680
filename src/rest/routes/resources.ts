/** Legacy resource routes (API document, "Resources"; compatibility notes §3, §4). */

import { ref } from '../../legacy/json-schemas.ts';
import type { ResourceFormatsFragment } from '../../legacy/operations.generated.ts';
import { relationsInput, resourceInput } from '../../legacy/resource-input.ts';
import { legacyRef, legacyResource as shaped } from '../../legacy/resource-json.ts';
import { oidParam, originParams, resourceIgnored, resourceOrRef, resourceQuery } from '../api-schemas.ts';
import {
  FLAG_VALUES,
  flag,
  type LegacyRoute,
  oneOf,
  pathId,
  type RequestParts,
  type Shaped,
  text,
} from '../route-table.ts';

/** Shaped in the format the variables asked for (`formats`: a repeated `format`, its first value). */
const legacyResource = (resource: ResourceFormatsFragment, { query }: RequestParts) =>
  shaped(resource, text(query.format));

/** `format` and `droits` query parameters, as the operations' variables. */
const formats = (parts: RequestParts) => {
  const format = oneOf(parts, 'format', parts.query.format, ['ressource', 'ref', 'full'], 'ressource');
  return {
    asRef: format === 'ref',
    full: format === 'full',
    droits: flag(parts, 'droits', parts.query.droits),
  };
};

/** `format=ref` of the saving routes: the saved resource as a Ref, instead of its oid. */
const asRef = (parts: RequestParts) =>
  oneOf(parts, 'format', parts.query.format, ['ref'], 'oid', 'the oid answer (the default)') === 'ref';

const byOid = (parts: RequestParts) => ({ oid: pathId(parts.params.oid), ...formats(parts) });
const byPair = (parts: RequestParts) => ({
  origine: parts.params.origine,
  idOrigine: parts.params.idOrigine,
  ...formats(parts),
});
const pairLabel = ({ params }: RequestParts) => `${params.origine}/${params.idOrigine}`;

/** `reponseRessourceOid`, or a Ref with `format=ref`; warnings when there are any. */
function savedResource(result: Shaped<'SaveResource' | 'AddResourceRelations'>, parts: RequestParts) {
  const warnings = result.warnings.length > 0 ? { warnings: result.warnings } : {};
  // `format=ref` selected the resource (`asRef`: a repeated `format`, its first value).
  if (text(parts.query.format) === 'ref') return { ...legacyRef(result.resource!.ref), ...warnings };
  return { oid: result.oid, ...warnings };
}

const saveVariables = (parts: RequestParts) => ({
  ...resourceInput(parts.body),
  merge:
    parts.query.merge !== undefined
      ? flag(parts, 'merge', parts.query.merge)
      : flag(parts, 'partial', parts.query.partial),
  asRef: asRef(parts),
});

const savedPayload = { anyOf: [ref('SavedResource'), ref('Ref')] };
const refQuery = {
  format: {
    enum: ['ref'],
    description: 'answer the saved resource as a Ref; another value: the oid answer, with a `Warning`',
  },
};
const relationPairs = {
  type: 'array',
  items: {
    type: 'array',
    prefixItems: [
      { type: 'integer', description: 'a relation type (API document, "Relations")' },
      { type: 'string', pattern: '^[^/\\s]+/[^/\\s]+$', description: 'a rid' },
    ],
    minItems: 2,
    maxItems: 2,
  },
  description: '[predicate, rid] pairs',
};
const resourceBody = {
  type: 'object',
  description:
    'resource properties, possibly partial (API document, "Resources"); `oid`, or `origine` and `idOrigine`, name the resource to update; creating one needs `titre` and `type`',
  properties: {
    oid: { type: 'integer', minimum: 1 },
    origine: { type: 'string', minLength: 1 },
    idOrigine: { type: 'string', minLength: 1 },
    titre: { type: 'string' },
    type: { type: 'string', minLength: 1, not: { const: 'error' } },
    publie: { type: 'boolean' },
    restriction: { enum: [0, 1, 2, 3] },
    indexable: { type: 'boolean' },
    categories: { type: 'array', items: { type: 'integer' }, maxItems: 50 },
    niveaux: { type: 'array', items: { type: 'string' }, maxItems: 20 },
    relations: relationPairs,
  },
  examples: [{ titre: 'Exemple', type: 'url', publie: true, restriction: 0 }],
};
const saveInvalid = [
  'Le corps de la requête doit être un objet décrivant la ressource',
  'type : obligatoire',
  'titre : obligatoire pour créer une ressource',
  'origine et idOrigine vont ensemble : il faut les deux ou aucun',
  '<propriété> : <problème> (one per property the service refuses)',
];
const savedIgnored = 'a `format` other than `ref`, a `merge` (`partial`) other than 1, true, 0, false';
const deniedPublicDelete = {
  summary: 'Always denied: /public/ routes run as an anonymous caller',
  payload: ref('Deleted'),
};

export const resourceRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/ressource'],
    operation: 'SaveResource',
    variables: saveVariables,
    shape: savedResource,
    doc: {
      summary: 'Create, overwrite or merge a resource',
      query: {
        ...refQuery,
        merge: {
          enum: FLAG_VALUES,
          description: 'merge into the stored resource (also `partial`); another value: no, with a `Warning`',
        },
      },
      body: resourceBody,
      payload: savedPayload,
      invalid: saveInvalid,
      ignored: savedIgnored,
    },
  },
  {
    method: 'options',
    paths: ['/api/ressource', '/api/ressource/addRelations'],
    allowMethods: 'POST OPTIONS',
  },
  {
    method: 'post',
    paths: ['/api/ressource/addRelations'],
    operation: 'AddResourceRelations',
    variables: (parts) => ({ input: relationsInput(parts.body), asRef: asRef(parts) }),
    shape: savedResource,
    doc: {
      summary: 'Add relations to a resource',
      query: refQuery,
      body: {
        type: 'object',
        description: 'the resource (`oid`, `origine` and `idOrigine`, or `ref`) and its new relations',
        properties: {
          oid: { type: 'integer' },
          origine: { type: 'string' },
          idOrigine: { type: 'string' },
          ref: { type: 'string' },
          relations: relationPairs,
        },
        required: ['relations'],
        anyOf: [{ required: ['oid'] }, { required: ['origine', 'idOrigine'] }, { required: ['ref'] }],
        examples: [{ oid: 1, relations: [[1, 'repo/2']] }],
      },
      payload: savedPayload,
      invalid: [
        'relations : obligatoire',
        'relations : doit être une liste de paires [type de relation, rid]',
        'Il faut identifier la ressource : oid, origine et idOrigine, ou ref',
      ],
      ignored: 'a `format` other than `ref`',
    },
  },
  {
    method: 'get',
    paths: ['/api/ressource/:oid'],
    operation: 'ResourceByOid',
    variables: byOid,
    shape: legacyResource,
    doc: {
      summary: 'A resource by oid',
      params: oidParam,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/ressource/:origine/:idOrigine'],
    operation: 'ResourceByOrigin',
    variables: byPair,
    shape: legacyResource,
    doc: {
      summary: 'A resource by origin pair (or rid)',
      params: originParams,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
  {
    method: 'delete',
    paths: ['/api/ressource/:oid'],
    operation: 'DeleteResource',
    variables: ({ params }) => ({ id: params.oid }),
    // `deleted` echoes the id as passed (deprecated, kept for compatibility).
    shape: (_deleted, { params }) => ({ deleted: params.oid }),
    doc: { summary: 'Delete a resource by oid', params: oidParam, payload: ref('Deleted') },
  },
  {
    // Denied: the public route runs as an anonymous caller.
    method: 'delete',
    paths: ['/api/public/:oid'],
    operation: 'DeleteResource',
    variables: ({ params }) => ({ id: params.oid }),
    shape: (_deleted, { params }) => ({ deleted: params.oid }),
    publicCache: true,
    doc: { ...deniedPublicDelete, params: oidParam },
  },
  {
    method: 'delete',
    paths: ['/api/ressource/:origine/:idOrigine'],
    operation: 'DeleteResource',
    variables: (parts) => ({ id: pairLabel(parts) }),
    shape: (_deleted, parts) => ({ deleted: pairLabel(parts) }),
    doc: {
      summary: 'Delete a resource by origin pair (or rid)',
      params: originParams,
      payload: ref('Deleted'),
    },
  },
  {
    // Denied: the public route runs as an anonymous caller.
    method: 'delete',
    paths: ['/api/public/:origine/:idOrigine'],
    operation: 'DeleteResource',
    variables: (parts) => ({ id: pairLabel(parts) }),
    shape: (_deleted, parts) => ({ deleted: pairLabel(parts) }),
    publicCache: true,
    doc: { ...deniedPublicDelete, params: originParams },
  },
  {
    method: 'get',
    paths: ['/api/public/getRid'],
    operation: 'ResourceRid',
    variables: ({ query }) => ({ id: text(query.id) ?? '' }),
    shape: (rid) => ({ rid: rid.data }),
    publicCache: true,
    doc: {
      summary: 'The rid of a resource, even a private one',
      query: {
        id: {
          type: 'string',
          required: true,
          pattern: '\\S',
          description: 'an oid, an origin pair `origine/idOrigine` or a rid',
          examples: ['1'],
        },
      },
      invalid: ['id manquant'],
      payload: { properties: { rid: { type: 'string' } }, required: ['rid'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/public/:oid'],
    operation: 'PublicResource',
    variables: byOid,
    shape: legacyResource,
    publicCache: true,
    doc: {
      summary: 'A public, published resource by oid',
      params: oidParam,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/public/:origine/:idOrigine'],
    operation: 'PublicResourceByOrigin',
    variables: byPair,
    shape: legacyResource,
    publicCache: true,
    doc: {
      summary: 'A public, published resource by origin pair',
      params: originParams,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/clone/:oid'],
    operation: 'CloneResource',
    changesState: true,
    variables: byOid,
    shape: (result, parts) => ({
      ...legacyResource(result.resource, parts),
      ...(result.warnings.length ? { warnings: result.warnings } : {}),
    }),
    doc: {
      summary: 'Copy a resource (the caller becomes author when it may edit it)',
      params: oidParam,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/createAlias/:baseId/:oid'],
    operation: 'CreateResourceAlias',
    changesState: true,
    variables: ({ params }) => ({ baseId: params.baseId, oid: pathId(params.oid) }),
    shape: (result) => ({ clone: legacyRef(result.resource.ref) }),
    doc: {
      summary: 'Create an alias of a resource, with the caller as author',
      params: {
        baseId: {
          type: 'string',
          configured: 'repositories',
          description: 'repository of the resource: this one or a configured peer',
        },
        ...oidParam,
      },
      invalid: ['Sésathèque <baseId> inconnue sur <baseUrl>'],
      payload: { properties: { clone: ref('Ref') }, required: ['clone'] },
    },
  },
  {
    method: 'get',
    paths: ['/api/forkAlias/:oid'],
    operation: 'ForkResourceAlias',
    changesState: true,
    variables: byOid,
    shape: (result, parts) => legacyResource(result.resource, parts),
    doc: {
      summary: 'Turn an alias into a resource of its own (keeps the oid)',
      invalid: ['La ressource <oid> n’est pas un alias'],
      params: oidParam,
      query: resourceQuery,
      payload: resourceOrRef,
      ignored: resourceIgnored,
    },
  },
];
