/**
 * GraphQL side of the error vocabulary (src/errors.ts): an `Error` interface with a machine code
 * from a closed enum, and one object type per domain error class. Fields list the classes they can
 * return in `errors.types`, which makes their result a union.
 */
import {
  AuthenticationRequiredError,
  ConflictError,
  DevLoginUnavailableError,
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

/** What each code means, and the HTTP status REST answers it with. */
const CODE_DESCRIPTIONS: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'The caller must log in (REST: 401).',
  FORBIDDEN: 'The caller may not do this (REST: 403).',
  NOT_FOUND: 'Nothing has this id, or not for this caller (REST: 404).',
  INVALID_INPUT: 'The input cannot be accepted; `problems` lists why when there are several (REST: 400).',
  CONFLICT: 'The change conflicts with the stored state, e.g. a name already taken (REST: 409).',
  PAYLOAD_TOO_LARGE: 'The request is larger than `http.bodyLimit` (REST: 413).',
  RATE_LIMITED: 'Too many failed authentications; retry after `retryAfterSeconds` (REST: 429).',
  CROSS_SITE_REQUEST: 'A state change sent by a page of another site, refused (REST: 403).',
  LAB_NOT_ALLOWED: 'The lab is not one the configuration allows (REST: 403).',
  LAB_LOGIN_REJECTED: 'The lab did not vouch for the user (REST: 401).',
  DEV_LOGIN_OFF:
    'The development login is off (configuration `devLogin`, or `DEV_LOGIN=1`); the message says how to turn it on (REST: 404).',
  DEV_LOGIN_REMOTE:
    'The development login answers callers on this machine only (`devLoginAllowRemote`, or `DEV_LOGIN_ALLOW_REMOTE=1`, opens it) (REST: 403).',
  UPSTREAM_UNAVAILABLE: 'A lab or peer repository failed to answer properly (REST: 502).',
  UPSTREAM_TIMEOUT: 'A lab or peer repository answered too late (REST: 504).',
  SERVICE_UNAVAILABLE: 'The database cannot be reached; retry shortly (REST: 503).',
  INTERNAL: 'An unexpected failure, masked (REST: 500).',
};

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'The closed set of error codes (src/errors.ts); each maps to one HTTP status on REST.',
  values: Object.fromEntries(
    ERROR_CODES.map((code) => [code, { description: CODE_DESCRIPTIONS[code] }]),
  ) as Record<ErrorCode, { description: string }>,
});

/** What each error type means (error types are named after their class). */
const ERROR_TYPE_DESCRIPTIONS: Record<string, string> = {
  AuthenticationRequiredError: 'The operation needs a logged-in caller (code UNAUTHENTICATED).',
  ForbiddenError: 'The caller is known but may not do this (code FORBIDDEN).',
  NotFoundError: 'Nothing has this id (code NOT_FOUND).',
  ConflictError: 'The change conflicts with the stored state (code CONFLICT).',
  LabNotAllowedError: 'The lab named is not allowed to log users in here (code LAB_NOT_ALLOWED).',
  LabLoginRejectedError: 'The lab did not vouch for the token (code LAB_LOGIN_REJECTED).',
  DevLoginUnavailableError:
    'The development login is off, or refuses callers from other machines; the message says how to turn it on (codes DEV_LOGIN_*).',
  UpstreamError: 'A lab or peer repository could not be reached in time, or failed (codes UPSTREAM_*).',
  InvalidInputError: 'The input cannot be accepted (code INVALID_INPUT); every problem is listed.',
  ResourceNotFoundError: 'No resource has this id, or the caller may not know it exists (code NOT_FOUND).',
  ResourceConflictError: 'The resource changed meanwhile, or its origin pair is taken (code CONFLICT).',
  GroupNotFoundError: 'No group has this name or oid (code NOT_FOUND).',
  GroupNameTakenError: 'Another group has this name or an equivalent spelling (code CONFLICT).',
  InvalidGroupNameError: 'The group name is empty or unusable (code INVALID_INPUT).',
  ManagerNotFoundError: 'The person to add as a manager does not exist (code NOT_FOUND).',
  NotInGroupError: 'The caller is not a member or follower of the group (code CONFLICT).',
};

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  description: 'An expected failure, returned as a member of a field’s result union.',
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
    description: ERROR_TYPE_DESCRIPTIONS[name] ?? `An expected failure (code ${codes.join(', ')}).`,
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
errorType(DevLoginUnavailableError, 'DevLoginUnavailableError', ['DEV_LOGIN_OFF', 'DEV_LOGIN_REMOTE']);

errorTypeCodes.set('InvalidInputError', ['INVALID_INPUT']);
builder.objectType(InvalidInputError, {
  name: 'InvalidInputError',
  description: ERROR_TYPE_DESCRIPTIONS.InvalidInputError,
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof InvalidInputError,
  fields: (t) => ({
    problems: t.exposeStringList('problems', {
      description: 'Every problem found, one per field or list element, naming it (French).',
    }),
  }),
});
