/**
 * `npm run codegen`: the result types of the named operations, generated from the printed schema
 * (schema.graphql, `npm run schema:print`) and the operation documents, and checked in;
 * `npm run codegen:check` fails when they are out of date. Offline: files only.
 *
 * - src/rest/operations/*.graphql (the legacy routes') → src/legacy/operations.generated.ts, beside
 *   the legacy JSON builders that take its fragments (src/rest/ is imported by src/app.ts alone);
 * - src/oai/operations.graphql (the OAI-PMH provider's) → src/oai/operations.generated.ts.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

/** The header and the operation maps (scripts/codegen-operation-map.ts), around the generated types. */
const plugins = (documentsFrom: string) => [
  { './scripts/codegen-operation-map.ts': { documentsFrom } },
  'typescript-operations',
];

const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/legacy/operations.generated.ts': {
      documents: 'src/rest/operations/*.graphql',
      plugins: plugins('src/rest/operations/*.graphql'),
    },
    'src/oai/operations.generated.ts': {
      documents: 'src/oai/operations.graphql',
      plugins: plugins('src/oai/operations.graphql'),
    },
  },
  config: {
    // What an operation run in process returns (src/gateway/operation-runner.ts): values as the
    // scalars serialize them before JSON. graphql-scalars' DateTime serializes to a Date (JSON makes
    // it ISO text later) and parses a Date or ISO text; JSON is any value.
    scalars: { DateTime: { input: 'Date | string', output: 'Date' }, JSON: 'unknown' },
    // A fragment spread without a directive stays a named type (`LegacyRefFragment`), which the
    // legacy JSON builders take; a conditional one (@include, @skip) is inlined with optional fields.
    inlineFragmentTypes: 'combine',
  },
};

export default config;
