/**
 * Legacy routes between repositories and labs (API document: registerListener, externalUpdate,
 * checkLab, checkRepo, baseId, deferPost, notifyError; compatibility notes §7).
 */

import { ref } from '../../legacy/json-schemas.ts';
import { deferPostInput, externalUpdateInput, listenerInput } from '../../legacy/peer-input.ts';
import type { LegacyResponse } from '../route-table.ts';
import { type LegacyRoute, type Shaped, text } from '../route-table.ts';

/**
 * A declared list of a configuration check as DeclaredBaseInput entries: an entry that is not an
 * object, or a field that is not text, is sent as null, which the check reports as missing.
 */
function declaredBases(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const { baseId, baseUrl } = entry as Record<string, unknown>;
    const textOrNull = (field: unknown) => (typeof field === 'string' ? field : null);
    return { baseId: textOrNull(baseId), baseUrl: textOrNull(baseUrl) };
  });
}

/** A checkLab or checkRepo body as LabConfigurationInput or RepositoryConfigurationInput. */
function configurationInput(body: Record<string, unknown>, fields: Record<string, string>) {
  const input: Record<string, unknown> = {};
  const malformedLists: string[] = [];
  for (const [legacyName, name] of Object.entries(fields)) {
    const value = body[legacyName];
    if (value === undefined) continue;
    if (legacyName === 'baseUrl') input[name] = typeof value === 'string' ? value : null;
    else if (value === null || Array.isArray(value)) input[name] = declaredBases(value);
    else malformedLists.push(name);
  }
  return malformedLists.length > 0 ? { ...input, malformedLists } : input;
}

/** A failed configuration check is `{success: false, errors, warnings}`, a bad request. */
const checkStatus = (response: LegacyResponse) => ({
  status: response.body.success === false ? 400 : response.status,
  body: response.body,
});

const checkResult = (check: Shaped<'CheckLab' | 'CheckRepo'>) => {
  const { success, message, errors, warnings } = check;
  const baseId = 'baseId' in check ? check.baseId : null;
  return success
    ? { message, ...(baseId ? { baseId } : {}), warnings }
    : { success: false, errors, warnings };
};

const warnings = { type: 'array', items: { type: 'string' } };
const declaredList = {
  type: 'array',
  items: {
    type: 'object',
    properties: { baseId: { type: 'string' }, baseUrl: { type: 'string' } },
    required: ['baseId', 'baseUrl'],
  },
  description: 'the `{baseId, baseUrl}` the caller declares (docs/compatibility.md §7)',
};
const rid = { type: 'string', pattern: '^[^/\\s]+/[^/\\s]+$' };
/** A configuration check fails with `{success: false, errors, warnings}`, other failures as usual. */
const checkFailure = { anyOf: [ref('ConfigCheckFailure'), ref('Failure')] };

export const peerRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/ressource/registerListener'],
    operation: 'RegisterPeerListener',
    variables: ({ body }) => ({ input: listenerInput(body) }),
    shape: ({ warnings }) => (warnings.length > 0 ? { warnings } : {}),
    doc: {
      summary: 'A peer asks to be told when resources change',
      body: {
        type: 'object',
        properties: {
          action: { enum: ['add', 'remove'] },
          baseId: { type: 'string', configured: 'peers', description: 'a configured peer' },
          rids: { type: 'array', items: rid, description: 'rids of resources of this repository' },
        },
        required: ['action', 'baseId', 'rids'],
      },
      payload: { properties: { warnings } },
      invalid: [
        'action : doit valoir « add » ou « remove »',
        'baseId : obligatoire',
        'rids : doit être une liste de rids',
        'Sésathèque <baseId> inconnue sur <baseUrl>',
      ],
    },
  },
  {
    method: 'post',
    paths: ['/api/ressource/externalUpdate'],
    operation: 'ApplyExternalUpdate',
    variables: ({ body }) => ({ input: externalUpdateInput(body) }),
    shape: () => ({}),
    doc: {
      summary: 'A peer’s changed Ref: updates the trees holding it',
      body: {
        type: 'object',
        properties: {
          ref: {
            type: 'object',
            description: 'the changed Ref; `aliasOf` is its rid',
            properties: { aliasOf: rid, titre: { type: 'string' }, type: { type: 'string' } },
            required: ['aliasOf'],
          },
          eventId: { type: 'string', description: 'repeats are ignored' },
        },
        required: ['ref'],
        examples: [{ ref: { aliasOf: 'voisine/1', titre: 'Exemple', type: 'url' } }],
      },
      invalid: ['ref : obligatoire (un Ref)', 'eventId : doit être un texte'],
    },
  },
  {
    method: 'post',
    paths: ['/api/checkLab'],
    operation: 'CheckLab',
    variables: ({ body }) => ({
      input: configurationInput(body, { baseUrl: 'baseUrl', sesatheques: 'repositories' }),
    }),
    shape: checkResult,
    respond: checkStatus,
    doc: {
      summary: 'Check the configuration of a lab',
      body: {
        type: 'object',
        properties: {
          baseUrl: { type: 'string', description: 'the lab’s; not a configured lab: a failed check' },
          sesatheques: declaredList,
        },
        required: ['baseUrl', 'sesatheques'],
      },
      payload: {
        properties: { message: { type: 'string' }, baseId: { type: 'string' }, warnings },
        required: ['message', 'warnings'],
      },
      responses: { 400: checkFailure },
    },
  },
  {
    method: 'post',
    paths: ['/api/checkRepo'],
    operation: 'CheckRepo',
    variables: ({ body }) => ({
      input: configurationInput(body, { sesatheques: 'repositories', sesalabs: 'labs' }),
    }),
    shape: checkResult,
    respond: checkStatus,
    doc: {
      summary: 'Check the configuration of a peer repository',
      body: {
        type: 'object',
        properties: { sesatheques: declaredList, sesalabs: declaredList },
        required: ['sesatheques'],
      },
      payload: { properties: { message: { type: 'string' }, warnings }, required: ['message', 'warnings'] },
      responses: { 400: checkFailure },
    },
  },
  {
    method: 'get',
    paths: ['/api/baseId'],
    operation: 'BaseIdOfUrl',
    variables: ({ query }) => ({ baseUrl: text(query.baseUrl) ?? '' }),
    shape: ({ baseId, type }) => ({ baseId, type }),
    doc: {
      summary: 'The baseId of a repository or lab URL',
      query: {
        baseUrl: {
          type: 'string',
          required: true,
          pattern: '\\S',
          description: 'the base URL of a lab or repository',
          examples: ['https://sesalab.example/'],
        },
      },
      invalid: ['baseUrl manquante'],
      payload: {
        properties: { baseId: { type: 'string' }, type: { enum: ['sesalab', 'sesatheque'] } },
        required: ['baseId', 'type'],
      },
    },
  },
  {
    method: 'get',
    paths: ['/api/baseId/:id'],
    operation: 'RepositoryBaseUrl',
    variables: ({ params }) => ({ baseId: params.id }),
    shape: ({ data }) => ({ baseUrl: data }),
    doc: {
      summary: 'The base URL of a repository baseId',
      params: { id: { type: 'string', description: 'a baseId' } },
      payload: { properties: { baseUrl: { type: 'string' } }, required: ['baseUrl'] },
    },
  },
  {
    method: 'post',
    paths: ['/api/deferPost'],
    operation: 'DeferPost',
    variables: ({ body, text: raw }) => ({ input: deferPostInput(body, raw) }),
    shape: () => ({}),
    doc: {
      summary: 'Forward a post to a lab (sent by pages as they unload)',
      body: {
        type: 'object',
        description:
          'posted as JSON to `deferUrl`, which must lie under a configured lab; also text/plain (sendBeacon)',
        properties: { deferUrl: { type: 'string', minLength: 1 } },
        required: ['deferUrl'],
      },
      invalid: [
        'deferUrl manquant',
        'Le corps de la requête doit être un objet',
        'Le corps de la requête n’est pas du JSON valide',
      ],
    },
  },
  {
    method: 'post',
    paths: ['/api/notifyError'],
    operation: 'NotifyError',
    variables: (parts) => {
      // A JSON body that is not an object reaches the route as `{}` (router.ts): an empty report.
      if (parts.arrayBody)
        parts.warnings.push('body: a JSON array ignored (a report is an object); an empty report {} used');
      return { input: { report: parts.text ?? parts.body } };
    },
    shape: () => ({}),
    doc: {
      summary: 'Record a client error in the logs',
      body: { type: 'object', description: 'with `rid`: the data-error log; also accepted as text/plain' },
      ignored: 'a JSON array as the body (an empty report is recorded)',
    },
  },
];
