/** Expected failures of the group domain (see src/errors.ts for the vocabulary). */
import { ConflictError, DomainError, NotFoundError } from '../../errors.ts';

export class GroupNotFoundError extends NotFoundError {
  constructor(nom: string | number) {
    super(`Le groupe ${nom} n’existe pas`);
  }
}

export class GroupNameTakenError extends ConflictError {
  constructor(nom: string) {
    super(`Le groupe ${nom} existe déjà`);
  }
}

/** A name that is missing, too long, or normalises to nothing (only punctuation, emoji…). */
export class InvalidGroupNameError extends DomainError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

/** `newGestionnairePid` / `newGestionnaireNom` name nobody (or only one of them is given). */
export class ManagerNotFoundError extends DomainError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** `quitter` / `ignorer` by someone who was not a member / follower. */
export class NotInGroupError extends ConflictError {
  constructor(nom: string) {
    super(`Vous n’étiez pas dans le groupe ${nom}`);
  }
}
