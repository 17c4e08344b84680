/** Legacy resource routes (API document, "Resources"; compatibility notes §3, §4). */
import { oidParam, originParams, ref, resourceOrRef, resourceQuery } from '../api-schemas.ts';
import { type LegacyRoute, pathId, type RequestParts, text } from '../route-table.ts';
import { relationsInput, resourceInput } from '../shapes/resource-input.ts';
import { legacyRef, type Result, legacyResource as shaped } from '../shapes/resources.ts';

const legacyResource = (resource: Result, { query }: RequestParts) => shaped(resource, query.format);

/** `format` and `droits` query parameters, as the operations' variables. */
const formats = ({ query }: RequestParts) => ({
  asRef: query.format === 'ref',
  full: query.format === 'full',
  droits: ['1', 'true'].includes(text(query.droits) ?? ''),
});

const byOid = (parts: RequestParts) => ({ oid: pathId(parts.params.oid), ...formats(parts) });
const byPair = (parts: RequestParts) => ({
  origine: parts.params.origine,
  idOrigine: parts.params.idOrigine,
  ...formats(parts),
});
const pairLabel = ({ params }: RequestParts) => `${params.origine}/${params.idOrigine}`;

/** `reponseRessourceOid`, or a Ref with `format=ref`; warnings when there are any. */
function savedResource(result: Result, parts: RequestParts) {
  const warnings = result.warnings.length > 0 ? { warnings: result.warnings } : {};
  if (parts.query.format === 'ref') return { ...legacyRef(result.resource.ref), ...warnings };
  return { oid: result.oid, ...warnings };
}

const saveVariables = ({ body, query }: RequestParts) => ({
  ...resourceInput(body),
  merge: ['1', 'true'].includes(text(query.merge) ?? text(query.partial) ?? ''),
  asRef: query.format === 'ref',
});

const savedPayload = { anyOf: [ref('SavedResource'), ref('Ref')] };
const refQuery = { format: { enum: ['ref'], description: 'answer the saved resource as a Ref' } };
const resourceBody = {
  type: 'object',
  description: 'resource properties, possibly partial; `oid` or `origine` and `idOrigine` required to update',
  properties: { oid: { type: 'integer' }, origine: { type: 'string' }, idOrigine: { type: 'string' } },
};
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
        merge: { enum: ['1', 'true'], description: 'merge into the stored resource (also `partial`)' },
      },
      body: resourceBody,
      payload: savedPayload,
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
    variables: ({ body, query }) => ({ input: relationsInput(body), asRef: query.format === 'ref' }),
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
          relations: {
            type: 'array',
            items: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }] },
          },
        },
        required: ['relations'],
      },
      payload: savedPayload,
    },
  },
  {
    method: 'get',
    paths: ['/api/ressource/:oid'],
    operation: 'ResourceByOid',
    variables: byOid,
    shape: legacyResource,
    doc: { summary: 'A resource by oid', params: oidParam, query: resourceQuery, payload: resourceOrRef },
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
      query: { id: { type: 'string', description: 'an oid, an origin pair `origine/idOrigine` or a rid' } },
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
      params: { baseId: { type: 'string', description: 'repository of the resource' }, ...oidParam },
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
      params: oidParam,
      query: resourceQuery,
      payload: resourceOrRef,
    },
  },
];
