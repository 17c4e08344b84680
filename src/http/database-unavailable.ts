/**
 * The Express error handler for database outages met outside GraphQL execution: the session
 * lookup (express-session), the caller resolution of a REST operation, the readiness of the store.
 * They answer 503 with `Retry-After`, in the envelope of the transport: `{success: false, error}`
 * on the legacy routes, a GraphQL error with code SERVICE_UNAVAILABLE on /graphql. Other errors go
 * on to the general handler.
 */
import type { ErrorRequestHandler } from 'express';
import {
  type DatabaseAvailability,
  RETRY_AFTER_SECONDS,
  serviceUnavailableError,
} from '../db/availability.ts';
import { messages } from '../errors.ts';

export function answerDatabaseUnavailable(database: DatabaseAvailability): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent || !database.report(error)) return next(error);
    res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    if (req.originalUrl.startsWith('/graphql')) {
      const { message, extensions } = serviceUnavailableError().toJSON();
      const { http: _http, ...visible } = extensions ?? {};
      res.status(503).json({ errors: [{ message, extensions: visible }] });
      return;
    }
    res.status(503).json({ success: false, error: messages.serviceUnavailable });
  };
}
