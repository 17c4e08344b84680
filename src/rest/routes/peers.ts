/**
 * Legacy routes between repositories and labs (API document: registerListener, externalUpdate,
 * checkLab, checkRepo, baseId, deferPost, notifyError; compatibility notes §7).
 */
import type { LegacyResponse } from '../legacy-response.ts';
import { type LegacyRoute, text } from '../route-table.ts';

/** A failed configuration check is `{success: false, errors, warnings}`, a bad request. */
const checkStatus = (response: LegacyResponse) => ({
  status: response.body.success === false ? 400 : response.status,
  body: response.body,
});

const checkResult = ({ success, message, baseId, errors, warnings }: Record<string, unknown>) =>
  success ? { message, ...(baseId ? { baseId } : {}), warnings } : { success: false, errors, warnings };

export const peerRoutes: LegacyRoute[] = [
  {
    method: 'post',
    paths: ['/api/ressource/registerListener'],
    operation: 'RegisterPeerListener',
    variables: ({ body }) => ({ input: body }),
    shape: ({ warnings }) => (warnings.length > 0 ? { warnings } : {}),
  },
  {
    method: 'post',
    paths: ['/api/ressource/externalUpdate'],
    operation: 'ApplyExternalUpdate',
    variables: ({ body }) => ({ input: body }),
    shape: () => ({}),
  },
  {
    method: 'post',
    paths: ['/api/checkLab'],
    operation: 'CheckLab',
    variables: ({ body }) => ({ input: body }),
    shape: checkResult,
    respond: checkStatus,
  },
  {
    method: 'post',
    paths: ['/api/checkRepo'],
    operation: 'CheckRepo',
    variables: ({ body }) => ({ input: body }),
    shape: checkResult,
    respond: checkStatus,
  },
  {
    method: 'get',
    paths: ['/api/baseId'],
    operation: 'BaseIdOfUrl',
    variables: ({ query }) => ({ baseUrl: text(query.baseUrl) ?? '' }),
    shape: ({ baseId, type }) => ({ baseId, type }),
  },
  {
    method: 'get',
    paths: ['/api/baseId/:id'],
    operation: 'RepositoryBaseUrl',
    variables: ({ params }) => ({ baseId: params.id }),
    shape: ({ data }) => ({ baseUrl: data }),
  },
  {
    method: 'post',
    paths: ['/api/deferPost'],
    operation: 'DeferPost',
    variables: ({ body, text: raw }) => ({ input: raw ?? body }),
    shape: () => ({}),
  },
  {
    method: 'post',
    paths: ['/api/notifyError'],
    operation: 'NotifyError',
    variables: ({ body, text: raw }) => ({ input: raw ?? body }),
    shape: () => ({}),
  },
];
