/** The one translation from operation results to the legacy envelope and statuses. */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError, RateLimitedError } from '../../src/errors.ts';
import { toLegacyResponse } from '../../src/rest/legacy-response.ts';
import type { OperationRoute } from '../../src/rest/route-table.ts';

const route: OperationRoute = {
  method: 'get',
  paths: ['/x'],
  operation: 'CheckPid',
  shape: ({ oid }) => ({ oid }),
};
const request = { path: '/x', params: {}, query: {}, body: {}, warnings: [] };

describe('toLegacyResponse', () => {
  it('spreads the shaped payload beside success: true', () => {
    expect(toLegacyResponse({ data: { result: { __typename: 'Person', oid: 3 } } }, route, request)).toEqual({
      status: 200,
      body: { success: true, oid: 3 },
    });
  });

  it('maps an error member of a result union to its status and message', () => {
    const result = {
      data: { result: { __typename: 'InvalidInputError', code: 'INVALID_INPUT', message: 'nom manquant' } },
    };
    expect(toLegacyResponse(result, route, request)).toEqual({
      status: 400,
      body: { success: false, error: 'nom manquant' },
    });
  });

  it.each([
    [new ForbiddenError(), 403, 'Droits insuffisants'],
    [new InvalidInputError(['a', 'b']), 400, 'a ; b'],
  ])('maps a thrown domain error (%s)', (error, status, message) => {
    expect(toLegacyResponse({ data: null, errors: [error] }, route, request)).toEqual({
      status,
      body: { success: false, error: message },
    });
  });

  it.each([
    ['Variable "$nom" got invalid value 123; String cannot represent a non string value', 'nom invalide'],
    [
      'Variable "$input" got invalid value 1 at "input.roles[0]"; String cannot represent a non string value: 1',
      'roles[0] invalide',
    ],
    ['Variable "$oid" of required type "Int!" was not provided.', 'oid manquant'],
    ['Variable "$input" of non-null type "JSON!" must not be null.', 'input manquant'],
  ])('answers 400 naming the legacy parameter when the variables did not fit (%s)', (message, named) => {
    const response = toLegacyResponse({ errors: [new GraphQLError(message)] }, route, request);
    expect(response).toEqual({
      status: 400,
      body: { success: false, error: `Paramètres invalides : ${named}` },
    });
  });

  it('answers 429 with Retry-After to a caller that failed too often', () => {
    const response = toLegacyResponse({ errors: [new RateLimitedError(42.2)] }, route, request);
    expect(response.status).toBe(429);
    expect(response.headers).toEqual({ 'Retry-After': '43' });
    expect(response.body).toEqual({
      success: false,
      error: 'Trop de tentatives échouées, réessayez dans 43 s',
    });
  });

  it('never shows the message of an unexpected error', () => {
    const masked = new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(toLegacyResponse({ data: { result: null }, errors: [masked] }, route, request)).toEqual({
      status: 500,
      body: { success: false, error: 'Une erreur interne est survenue' },
    });
    const partial = {
      data: { result: { __typename: 'Person', oid: 1 } },
      errors: [new GraphQLError('db exploded')],
    };
    expect(toLegacyResponse(partial, route, request)).toEqual({
      status: 500,
      body: { success: false, error: 'Une erreur interne est survenue' },
    });
  });
});
