/**
 * The raw input of a request (its parsed body and query) passes the checks that no valid input
 * can fail (src/security/input-limits.ts) before the session is looked up or anything runs: a
 * hostile shape gets a 400 in the transport's own format. GraphQL variables and literals pass the
 * same checks again in the GraphQL pipeline, whichever transport produced them.
 */
import type { Request, RequestHandler, Response } from 'express';
import { messages } from '../errors.ts';
import { type InputLimits, inputProblem } from '../security/input-limits.ts';

function refuse(req: Request, res: Response, problem: string): void {
  req.log.info({ problem }, 'hostile input refused');
  if (req.baseUrl === '/graphql') {
    res.status(400).json({
      errors: [{ message: `${messages.invalidInput} : ${problem}`, extensions: { code: 'INVALID_INPUT' } }],
    });
  } else {
    res.status(400).json({ success: false, error: `${messages.invalidInput} : ${problem}` });
  }
}

export function refuseHostileInput(limits: InputLimits): RequestHandler {
  return (req, res, next) => {
    // Raw bodies (Buffers: GraphQL documents, forms, uploads) are checked once parsed, by Yoga.
    const body = Buffer.isBuffer(req.body) ? undefined : req.body;
    const problem = inputProblem(body, limits, 'corps') ?? inputProblem(req.query, limits, 'paramètres');
    if (problem) refuse(req, res, problem);
    else next();
  };
}
