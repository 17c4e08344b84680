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

/** Exposes a DomainError subclass as a GraphQL object type implementing `Error`. */
// biome-ignore lint/suspicious/noExplicitAny: error classes take different constructor arguments.
export function errorType(cls: new (...args: any[]) => DomainError, name: string = cls.name) {
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
errorType(UpstreamError, 'UpstreamError');

builder.objectType(InvalidInputError, {
  name: 'InvalidInputError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof InvalidInputError,
  fields: (t) => ({
    problems: t.exposeStringList('problems'),
  }),
});
