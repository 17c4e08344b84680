/** Expected failures of the resource domain (see src/errors.ts for the vocabulary). */
import { ConflictError, NotFoundError } from '../../errors.ts';

export class ResourceNotFoundError extends NotFoundError {
  constructor(id?: string | number) {
    super(id === undefined ? 'Ce contenu n’existe pas' : `La ressource ${id} n’existe pas`);
  }
}

/** Another resource already holds this origin pair. */
export class ResourceConflictError extends ConflictError {}
