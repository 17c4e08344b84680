/**
 * The GraphQL server: Yoga over the Pothos schema, with the shared context factory, masking of
 * unexpected errors, limits on depth, aliases, cost, tokens and directives (graphql-armor), and
 * GraphiQL served without a CDN.
 */
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaLogger } from 'graphql-yoga';
import type { Context, createContextFactory, Services } from '../context.ts';
import type { ServerContext, Yoga } from '../rest/execute.ts';
import { schema } from './schema.ts';

function yogaLogger(services: Services): YogaLogger {
  const log = services.logger.child({ component: 'graphql' });
  return {
    debug: (...args) => log.debug(args.map(String).join(' ')),
    info: (...args) => log.info(args.map(String).join(' ')),
    warn: (...args) => log.warn(args.map(String).join(' ')),
    error: (...args) => log.error({ err: args.find((a) => a instanceof Error) }, args.map(String).join(' ')),
  };
}

export function createGraphQLServer(
  services: Services,
  createContext: ReturnType<typeof createContextFactory>,
): Yoga {
  const limits = services.config.graphql;
  const armor = new EnvelopArmor({
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    costLimit: { maxCost: limits.maxCost },
    maxTokens: { n: limits.maxTokens },
    maxDirectives: { n: limits.maxDirectives },
    // Suggestions ("did you mean …") help attackers map the schema; keep them for development.
    blockFieldSuggestion: { enabled: !limits.exposeInternalErrors },
  });
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ req }) => createContext({ req }),
    graphiql: limits.graphiql ? { title: 'Resource Repository — GraphiQL' } : false,
    renderGraphiQL,
    landingPage: false,
    // CORS is Express's job, with one policy for /api and /graphql.
    cors: false,
    maskedErrors: { isDev: limits.exposeInternalErrors },
    logging: yogaLogger(services),
    plugins: [...armor.protect().plugins],
  });
}
