/**
 * The one error vocabulary of the service. Domain code throws these; GraphQL exposes them as typed
 * errors (result unions, or `extensions.code` when thrown), and the REST layer maps each code to
 * the legacy status and `{success: false, error}` envelope. Messages are French on purpose: legacy
 * clients show them to teachers.
 */
import { GraphQLError } from 'graphql';

export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_INPUT: 400,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  CROSS_SITE_REQUEST: 403,
  LAB_NOT_ALLOWED: 403,
  LAB_LOGIN_REJECTED: 401,
  DEV_LOGIN_OFF: 404,
  DEV_LOGIN_REMOTE: 403,
  UPSTREAM_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const messages = {
  authenticationRequired: 'Authentification requise',
  forbidden: 'Droits insuffisants',
  notFound: 'Ce contenu n’existe pas',
  internal: 'Une erreur interne est survenue',
  pageNotFound: 'Cette page ou ce fichier n’existe pas',
  invalidJson: 'Le corps de la requête n’est pas du JSON valide',
  bodyTooLarge: 'Le corps de la requête est trop volumineux',
  timeout: 'La requête a pris trop de temps, veuillez réessayer',
  invalidParameters: 'Paramètres invalides',
  invalidInput: 'Entrée refusée',
  serviceUnavailable: 'Service momentanément indisponible, veuillez réessayer dans quelques instants',
} as const;

/** Base of every expected failure. A GraphQLError, so Yoga never masks it. */
export class DomainError extends GraphQLError {
  readonly code: ErrorCode;
  /**
   * The message in English for operators (the command-line tool speaks English); never sent to API
   * clients, who keep the French message.
   */
  operatorMessage?: string;

  /** Gives the command-line tool an English message; the API's stays as it is. */
  forOperators(message: string): this {
    this.operatorMessage = message;
    return this;
  }

  constructor(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { ...extensions, code } });
    this.code = code;
    this.name = new.target.name;
  }
}

/** Nobody is authenticated and the operation needs someone. */
export class AuthenticationRequiredError extends DomainError {
  constructor(message: string = messages.authenticationRequired) {
    super('UNAUTHENTICATED', message);
  }
}

/** The caller is known but not allowed. */
export class ForbiddenError extends DomainError {
  constructor(message: string = messages.forbidden) {
    super('FORBIDDEN', message);
  }
}

/**
 * The refusal of an operation to this caller: 401 when nobody is authenticated (logging in may
 * help), 403 otherwise. The one place that choice is made.
 */
export function deniedError(viewer: { kind: string }): AuthenticationRequiredError | ForbiddenError {
  return viewer.kind === 'anonymous' ? new AuthenticationRequiredError() : new ForbiddenError();
}

export class NotFoundError extends DomainError {
  constructor(message: string = messages.notFound) {
    super('NOT_FOUND', message);
  }
}

/** Bad input: every problem is listed in `problems`, and nothing was written. */
export class InvalidInputError extends DomainError {
  readonly problems: string[];

  constructor(problems: string | string[]) {
    const list = Array.isArray(problems) ? problems : [problems];
    super('INVALID_INPUT', list.join(' ; '), { problems: list });
    this.problems = list;
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/** A lab login names an origin that is not a configured lab. */
export class LabNotAllowedError extends DomainError {
  constructor(origine: string) {
    super('LAB_NOT_ALLOWED', `Origine ${origine} non autorisée à se connecter ici`);
  }
}

/** The lab answered, and refused the token. */
export class LabLoginRejectedError extends DomainError {
  constructor(message: string) {
    super('LAB_LOGIN_REJECTED', message);
  }
}

/**
 * The development login does not answer here: it is off (the service offers no such login, hence
 * 404), or on for callers on this machine only (403). The message says how to turn it on, since the
 * one reading it is a developer trying it.
 */
export class DevLoginUnavailableError extends DomainError {
  constructor(reason: 'off' | 'remote') {
    super(
      reason === 'off' ? 'DEV_LOGIN_OFF' : 'DEV_LOGIN_REMOTE',
      reason === 'off'
        ? 'Connexion de développement désactivée : démarrez le service avec DEV_LOGIN=1 (ou "devLogin": true dans la configuration), jamais en production'
        : 'Connexion de développement désactivée pour les appels distants : elle ne répond qu’aux appels de cette machine (127.0.0.1, ::1) ; pour l’ouvrir à d’autres adresses, démarrez le service avec DEV_LOGIN_ALLOW_REMOTE=1 (ou "devLoginAllowRemote": true dans la configuration)',
    );
  }
}

/** A lab or peer could not be reached, failed, or answered something unusable. */
export class UpstreamError extends DomainError {
  constructor(code: 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_TIMEOUT', message: string) {
    super(code, message);
  }
}

/**
 * Too many failed authentications from this address or for this subject: refused until the
 * window ends. `extensions.http` makes Yoga answer 429 with `Retry-After`; REST does the same.
 */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super('RATE_LIMITED', `Trop de tentatives échouées, réessayez dans ${seconds} s`, {
      retryAfterSeconds: seconds,
      http: { status: 429, headers: { 'Retry-After': String(seconds) } },
    });
    this.retryAfterSeconds = seconds;
  }
}

/** A browser was made to change state here by a page of another site (src/security/cross-site.ts). */
export class CrossSiteRequestError extends DomainError {
  constructor(reason: string) {
    super('CROSS_SITE_REQUEST', `Requête refusée : ${reason}`, { http: { status: 403 } });
  }
}

export function statusOf(code: string | undefined): number {
  return code && code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : 500;
}
