/**
 * `/graphql`, after the request pipeline: the GraphiQL page to a browser's GET (compressed once,
 * src/http/graphiql-page.ts), a plain JSON POST by Yoga's own code without its HTTP wrapping
 * (src/gateway/plain-post.ts), anything else by Yoga.
 */
import type { Express, Request, Response } from 'express';
import type { GraphQLServer } from '../gateway/yoga.ts';
import { sendGraphiQL } from './graphiql-page.ts';

export function mountGraphQL(app: Express, { yoga, graphiql, plainPost }: GraphQLServer): void {
  app.all('/graphql', (req: Request, res: Response) => {
    // The request Yoga would answer with GraphiQL (a browser's GET): the page, compressed once.
    if (graphiql && req.method === 'GET' && req.headers.accept?.includes('text/html')) {
      return sendGraphiQL(graphiql, req, res);
    }
    const byYoga = () => yoga(req, res, { req, res });
    return plainPost(req, res, byYoga) ?? byYoga();
  });
}
