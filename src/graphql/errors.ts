/**
 * GraphQL side of the error vocabulary (src/errors.ts): an `Error` interface with a machine code
 * from a closed enum, and one object type per domain error class. Fields list the classes they can
 * return in `errors.types`, which makes their result a union.
 */
import {
  AuthenticationRequiredError,
  ConflictError,
  type DomainError,
  ERROR_CODES,
  type ErrorCode,
  ForbiddenError,
  InvalidInputError,
  LabLoginRejectedError,
  LabNotAllowedError,
  NotFoundError,
  UpstreamError,
} from '../errors.ts';
import { builder } from './builder.ts';

export const ErrorCodeEnum = builder.enumType('ErrorCode', { values: ERROR_CODES });

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.field({ type: ErrorCodeEnum, resolve: (error) => error.code }),
  }),
});

/**
 * Error type name → the codes its errors carry, for the OpenAPI document (src/rest/openapi.ts),
 * which lists the statuses of the error types a route's result union holds.
 */
export const errorTypeCodes = new Map<string, readonly ErrorCode[]>();

// biome-ignore lint/suspicious/noExplicitAny: error classes take different constructor arguments.
type ErrorClass = new (...args: any[]) => DomainError;

/** The code a class sets in its constructor (each class has one, unless given `codes`). */
function codeOf(cls: ErrorClass): ErrorCode {
  return new cls('').code;
}

/**
 * Exposes a DomainError subclass as a GraphQL object type implementing `Error`. `codes`: for a
 * class whose code is a constructor argument.
 */
export function errorType(
  cls: ErrorClass,
  name: string = cls.name,
  codes: readonly ErrorCode[] = [codeOf(cls)],
) {
  errorTypeCodes.set(name, codes);
  builder.objectType(cls, {
    name,
    interfaces: [ErrorInterface],
    isTypeOf: (value) => value instanceof cls,
  });
}

errorType(AuthenticationRequiredError, 'AuthenticationRequiredError');
errorType(ForbiddenError, 'ForbiddenError');
errorType(NotFoundError, 'NotFoundError');
errorType(ConflictError, 'ConflictError');
errorType(LabNotAllowedError, 'LabNotAllowedError');
errorType(LabLoginRejectedError, 'LabLoginRejectedError');
errorType(UpstreamError, 'UpstreamError', ['UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

errorTypeCodes.set('InvalidInputError', ['INVALID_INPUT']);
builder.objectType(InvalidInputError, {
  name: 'InvalidInputError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof InvalidInputError,
  fields: (t) => ({
    problems: t.exposeStringList('problems'),
  }),
});
