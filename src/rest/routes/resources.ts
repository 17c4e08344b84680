/** Legacy resource routes (API document, "Resources"; compatibility notes §3, §4). */
import { type LegacyRoute, pathId, type RequestParts, text } from '../route-table.ts';
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
  input: body,
  merge: ['1', 'true'].includes(text(query.merge) ?? text(query.partial) ?? ''),
  asRef: query.format === 'ref',
});

export const resourceRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/ressource'],
    operation: 'SaveResource',
    variables: saveVariables,
    shape: savedResource,
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
    variables: ({ body, query }) => ({ input: body, asRef: query.format === 'ref' }),
    shape: savedResource,
  },
  {
    method: 'get',
    paths: ['/api/ressource/:oid'],
    operation: 'ResourceByOid',
    variables: byOid,
    shape: legacyResource,
  },
  {
    method: 'get',
    paths: ['/api/ressource/:origine/:idOrigine'],
    operation: 'ResourceByOrigin',
    variables: byPair,
    shape: legacyResource,
  },
  {
    method: 'delete',
    paths: ['/api/ressource/:oid'],
    operation: 'DeleteResource',
    variables: ({ params }) => ({ id: params.oid }),
    // `deleted` echoes the id as passed (deprecated, kept for compatibility).
    shape: (_deleted, { params }) => ({ deleted: params.oid }),
  },
  {
    // Denied: the public route runs as an anonymous caller.
    method: 'delete',
    paths: ['/api/public/:oid'],
    operation: 'DeleteResource',
    variables: ({ params }) => ({ id: params.oid }),
    shape: (_deleted, { params }) => ({ deleted: params.oid }),
    publicCache: true,
  },
  {
    method: 'delete',
    paths: ['/api/ressource/:origine/:idOrigine'],
    operation: 'DeleteResource',
    variables: (parts) => ({ id: pairLabel(parts) }),
    shape: (_deleted, parts) => ({ deleted: pairLabel(parts) }),
  },
  {
    // Denied: the public route runs as an anonymous caller.
    method: 'delete',
    paths: ['/api/public/:origine/:idOrigine'],
    operation: 'DeleteResource',
    variables: (parts) => ({ id: pairLabel(parts) }),
    shape: (_deleted, parts) => ({ deleted: pairLabel(parts) }),
    publicCache: true,
  },
  {
    method: 'get',
    paths: ['/api/public/getRid'],
    operation: 'ResourceRid',
    variables: ({ query }) => ({ id: text(query.id) ?? '' }),
    shape: (rid) => ({ rid: rid.data }),
    publicCache: true,
  },
  {
    method: 'get',
    paths: ['/api/public/:oid'],
    operation: 'PublicResource',
    variables: byOid,
    shape: legacyResource,
    publicCache: true,
  },
  {
    method: 'get',
    paths: ['/api/public/:origine/:idOrigine'],
    operation: 'PublicResourceByOrigin',
    variables: byPair,
    shape: legacyResource,
    publicCache: true,
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
  },
  {
    method: 'get',
    paths: ['/api/createAlias/:baseId/:oid'],
    operation: 'CreateResourceAlias',
    changesState: true,
    variables: ({ params }) => ({ baseId: params.baseId, oid: pathId(params.oid) }),
    shape: (result) => ({ clone: legacyRef(result.resource.ref) }),
  },
  {
    method: 'get',
    paths: ['/api/forkAlias/:oid'],
    operation: 'ForkResourceAlias',
    changesState: true,
    variables: byOid,
    shape: (result, parts) => legacyResource(result.resource, parts),
  },
];
