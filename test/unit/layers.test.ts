/**
 * The two ways src/http/layers.ts saves Express layers behave as the layers they replace: handlers
 * in sequence as middlewares mounted one after the other (order, errors passed or thrown, `next('route')`),
 * and a router entered only under its paths, matched as Express matches a mount path.
 */
import express, { type ErrorRequestHandler, type RequestHandler, Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { inSequence, under } from '../../src/http/layers.ts';

const record =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    (req as unknown as { seen: string[] }).seen.push(name);
    next();
  };

function appWith(layer: RequestHandler) {
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as { seen: string[] }).seen = [];
    next();
  });
  app.use('/api', layer);
  app.use((req, res) => {
    res.json({ seen: (req as unknown as { seen: string[] }).seen });
  });
  const errors: ErrorRequestHandler = (error, req, res, _next) => {
    res
      .status(500)
      .json({ error: (error as Error).message, seen: (req as unknown as { seen: string[] }).seen });
  };
  app.use(errors);
  return app;
}

describe('inSequence', () => {
  it('runs each handler in order, then the next layer, with the mount path seen by each', async () => {
    const paths: string[] = [];
    const app = appWith(
      inSequence([
        record('a'),
        (req, _res, next) => {
          paths.push(`${req.baseUrl} ${req.path}`);
          next('route');
        },
        record('b'),
      ]),
    );
    const answer = await request(app).get('/api/x/y');
    expect(answer.body).toEqual({ seen: ['a', 'b'] });
    expect(paths).toEqual(['/api /x/y']);
  });

  it('stops at an error passed to next or thrown, and hands it to the error handlers', async () => {
    const passed = appWith(
      inSequence([record('a'), (_req, _res, next) => next(new Error('passed')), record('b')]),
    );
    expect((await request(passed).get('/api')).body).toEqual({ error: 'passed', seen: ['a'] });
    const thrown = appWith(
      inSequence([
        record('a'),
        () => {
          throw new Error('thrown');
        },
        record('b'),
      ]),
    );
    expect((await request(thrown).get('/api')).body).toEqual({ error: 'thrown', seen: ['a'] });
  });

  it('leaves the answer to a handler that sends it', async () => {
    const app = appWith(inSequence([record('a'), (_req, res) => res.status(204).end(), record('b')]));
    expect((await request(app).get('/api')).status).toBe(204);
  });
});

describe('under', () => {
  const router = Router();
  router.get('/api/docs', (_req, res) => res.send('docs'));
  router.get('/api/docs/:asset', (req, res) => res.send(`asset ${req.params.asset}`));
  router.get('/openapi.json', (_req, res) => res.send('document'));
  const app = express();
  let entered = 0;
  app.use(
    under(['/api/docs', '/openapi.json'], (req, res, next) => {
      entered += 1;
      router(req, res, next);
    }),
  );
  app.use((_req, res) => res.status(404).send('elsewhere'));

  it('enters the router for its paths, whatever their case, with or without a trailing slash', async () => {
    for (const [path, text] of [
      ['/api/docs', 'docs'],
      ['/API/Docs/', 'docs'],
      ['/api/docs/init.js', 'asset init.js'],
      ['/openapi.json', 'document'],
      ['/openapi.json?x=1', 'document'],
    ]) {
      expect((await request(app).get(path!)).text, path).toBe(text);
    }
  });

  it('lets every other request pass without entering it', async () => {
    entered = 0;
    for (const path of ['/', '/api', '/api/docsx', '/api/ressource/1', '/openapi.jsonx', '/docs']) {
      expect((await request(app).get(path)).text, path).toBe('elsewhere');
    }
    expect(entered).toBe(0);
  });
});
