/**
 * The response cache's key (src/gateway/response-cache.ts): computed synchronously, different for
 * any difference in the request or the content generation, the same otherwise.
 */
import { describe, expect, it } from 'vitest';
import { contentChanges } from '../../src/db/content-changes.ts';
import { responseCacheKey } from '../../src/gateway/response-cache.ts';

const request = {
  documentString: 'query Public($oid: Int!) { publicResource(oid: $oid) { __typename } }',
  operationName: 'Public',
  variableValues: { oid: 5, format: 'full' },
  sessionId: null,
  context: {},
};

describe('response cache key', () => {
  it('is a string computed at once, the same for the same request and generation', () => {
    const key = responseCacheKey(request);
    expect(typeof key).toBe('string');
    expect(responseCacheKey({ ...request, variableValues: { oid: 5, format: 'full' } })).toBe(key);
  });

  it('differs for another document, operation, variable value or generation', () => {
    const key = responseCacheKey(request);
    const others = [
      { ...request, documentString: `${request.documentString} ` },
      { ...request, operationName: 'Other' },
      { ...request, operationName: undefined },
      { ...request, variableValues: { oid: 6, format: 'full' } },
      { ...request, variableValues: { oid: 5 } },
      { ...request, variableValues: undefined },
    ].map(responseCacheKey);
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
    contentChanges.writing();
    expect(responseCacheKey(request)).not.toBe(key);
  });

  it('cannot be made equal by moving text between the document and the operation name', () => {
    const a = responseCacheKey({ ...request, documentString: 'query A|', operationName: 'B' });
    const b = responseCacheKey({ ...request, documentString: 'query A', operationName: '|B' });
    expect(a).not.toBe(b);
  });
});

describe('response cache key size', () => {
  it('stays small whatever variables are posted', () => {
    const key = responseCacheKey({ ...request, variableValues: { oid: 5, junk: 'x'.repeat(100_000) } });
    expect(key.length).toBeLessThan(200);
    expect(key).not.toBe(
      responseCacheKey({ ...request, variableValues: { oid: 5, junk: 'x'.repeat(99_999) } }),
    );
  });
});
