/**
 * The last handlers: errors no surface answered itself. A database outage first
 * (src/http/database-unavailable.ts), then every other error in the legacy envelope
 * `{success: false, error}`: a body that could not be read, or any error carrying a 4xx status, is
 * the client's, answered with that status (and its message when it may be shown); anything else is
 * logged and answered 500 with a message that tells nothing of the cause.
 */
import type { ErrorRequestHandler, Express } from 'express';
import type { DatabaseAvailability } from '../db/availability.ts';
import { messages } from '../errors.ts';
import { answerDatabaseUnavailable } from './database-unavailable.ts';

const answerOtherErrors: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) return;
  if (error?.type === 'entity.parse.failed') {
    res.status(400).json({ success: false, error: messages.invalidJson });
  } else if (error?.type === 'entity.too.large') {
    res.status(413).json({ success: false, error: messages.bodyTooLarge });
  } else if (typeof error?.status === 'number' && error.status >= 400 && error.status < 500) {
    res
      .status(error.status)
      .json({ success: false, error: String(error.expose ? error.message : 'Requête invalide') });
  } else {
    req.log.error({ err: error }, 'unexpected error');
    res.status(500).json({ success: false, error: messages.internal });
  }
};

export function mountErrorHandlers(app: Express, database: DatabaseAvailability): void {
  app.use(answerDatabaseUnavailable(database), answerOtherErrors);
}
