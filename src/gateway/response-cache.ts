/**
 * A response cache for anonymous public reads (`publicResource`, `publicResourceByOrigin`,
 * `resourceRid`: what `/api/public/…` runs), built on envelop's response-cache plugin.
 *
 * Freshness does not rely on knowing which entry a change touches: every entry is keyed by the
 * content generation current when its execution began (src/db/content-changes.ts), and any
 * change to content moves the generation, on the instance that wrote at once, on the others when
 * the database tells them (PostgreSQL NOTIFY, SQLite's data version). So an answer is served only
 * while nothing at all changed since it was computed: a resource made private, unpublished,
 * deleted, renamed, or one of its authors renamed, is never served from the cache after that.
 * Entries of older generations are left to the LRU bound and the TTL.
 */
import { createHash } from 'node:crypto';
import {
  type BuildResponseCacheKeyFunction,
  createInMemoryCache,
  useResponseCache,
} from '@envelop/response-cache';
import { type DocumentNode, getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.ts';
import { contentChanges } from '../db/content-changes.ts';

/** Root fields whose answers do not depend on who asks (beyond being anonymous). */
export const CACHEABLE_ROOT_FIELDS: ReadonlySet<string> = new Set([
  'publicResource',
  'publicResourceByOrigin',
  'resourceRid',
]);

export interface ResponseCacheOptions {
  enabled: boolean;
  maxEntries: number;
  ttlSeconds: number;
}

const cacheableDocuments = new WeakMap<DocumentNode, Map<string, boolean>>();

/** Whether the operation is a query whose every root field is cacheable (memoized per document). */
function isCacheableOperation(document: DocumentNode, operationName: string | null | undefined): boolean {
  let byName = cacheableDocuments.get(document);
  if (!byName) {
    byName = new Map<string, boolean>();
    cacheableDocuments.set(document, byName);
  }
  const key = operationName ?? '';
  let cacheable = byName.get(key);
  if (cacheable === undefined) {
    const operation = getOperationAST(document, operationName);
    cacheable =
      operation?.operation === 'query' &&
      operation.selectionSet.selections.every(
        (selection) =>
          selection.kind === Kind.FIELD &&
          (CACHEABLE_ROOT_FIELDS.has(selection.name.value) || selection.name.value === '__typename'),
      );
    byName.set(key, cacheable);
  }
  return cacheable;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** Digests of the documents seen, by text: a document is hashed once, not on every read. */
const documentDigests = new Map<string, string>();
const MAX_DOCUMENT_DIGESTS = 1000;
/** Variables longer than this are hashed in the key, so that a key stays small whatever is posted. */
const MAX_VERBATIM_VARIABLES = 256;

/**
 * The key of an answer: the content generation, the document's digest, then the operation name and
 * variables. Computed synchronously: the plugin's default goes through WebCrypto's asynchronous
 * digest, a measurable share of a cached public read's CPU (docs/performance.md). Variables are serialized as sent (the
 * REST layer builds them in a fixed order); the same variables in another key order only miss.
 */
export function responseCacheKey({
  documentString,
  operationName,
  variableValues,
}: Parameters<BuildResponseCacheKeyFunction>[0]): string {
  let document = documentDigests.get(documentString);
  if (document === undefined) {
    if (documentDigests.size >= MAX_DOCUMENT_DIGESTS) documentDigests.clear();
    document = sha256(documentString);
    documentDigests.set(documentString, document);
  }
  // One JSON array: no way for two different pairs to serialize alike.
  const request = JSON.stringify([operationName ?? '', variableValues ?? {}]);
  const rest = request.length > MAX_VERBATIM_VARIABLES ? sha256(request) : request;
  return `${contentChanges.generation}:${document}:${rest}`;
}

export function usePublicResponseCache(options: ResponseCacheOptions): Plugin {
  const inner = useResponseCache<Context>({
    // Shared by every anonymous caller: only anonymous callers get here (see onExecute below).
    session: () => null,
    ttl: options.ttlSeconds * 1000,
    // Freshness comes from the generation in the key, not from mutation results.
    invalidateViaMutation: false,
    includeExtensionMetadata: false,
    cache: createInMemoryCache({ max: options.maxEntries }),
    buildResponseCacheKey: responseCacheKey,
    // Typed errors are data (not found is a stable answer); GraphQL errors are never kept.
    shouldCacheResult: ({ result }) => !result.errors?.length,
  });
  const { onExecute } = inner;
  const plugin: typeof inner = {
    ...inner,
    onExecute(params) {
      const { contextValue, document, operationName } = params.args;
      if (!options.enabled || !onExecute) return;
      if (contextValue.viewer?.kind !== 'anonymous') return;
      // A change made elsewhere might not be heard: compute afresh, keep nothing.
      if (!contentChanges.live) return;
      if (!isCacheableOperation(document, operationName)) return;
      return onExecute(params);
    },
  };
  return plugin as Plugin;
}
