/**
 * The result types of the named operations, generated from the printed schema (schema.graphql,
 * `npm run schema:print`) and the operation documents, and checked in:
 *
 *   tsx scripts/codegen.ts           write the generated files (npm run codegen)
 *   tsx scripts/codegen.ts --check   exit 1 when one is out of date (npm run codegen:check)
 *
 * - src/rest/operations/*.graphql (the legacy routes') → src/legacy/operations.generated.ts, beside
 *   the legacy JSON builders that take its fragments (src/rest/ is imported by src/app.ts alone);
 * - src/oai/operations.graphql (the OAI-PMH provider's) → src/oai/operations.generated.ts.
 *
 * graphql-codegen's core and its typescript-operations plugin, called here rather than through its
 * CLI: the CLI's loaders (URLs, GitHub, Apollo) need Node.js 22 where npm runs on the machine's (an
 * EBADENGINE on install), and this project reads files only. Offline.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import { buildSchema, parse } from 'graphql';
import * as operationMap from './codegen-operation-map.ts';

const TARGETS = [
  { output: 'src/legacy/operations.generated.ts', documents: 'src/rest/operations/*.graphql' },
  { output: 'src/oai/operations.generated.ts', documents: 'src/oai/operations.graphql' },
];

const CONFIG = {
  // What an operation run in process returns (src/gateway/operation-runner.ts): values as the
  // scalars serialize them before JSON. DateTime (src/graphql/scalars.ts) serializes to ISO text
  // and parses a Date or ISO text; JSON is any value.
  scalars: { DateTime: { input: 'Date | string', output: 'string' }, JSON: 'unknown' },
  // A fragment spread without a directive stays a named type (`LegacyRefFragment`), which the
  // legacy JSON builders take; a conditional one (@include, @skip) is inlined with optional fields.
  inlineFragmentTypes: 'combine',
};

/** The files a pattern names: one file, or `<folder>/*.graphql`, in name order. */
function documentFiles(pattern: string): string[] {
  if (!pattern.includes('*')) return [pattern];
  const folder = dirname(pattern);
  const suffix = basename(pattern).replace('*', '');
  return readdirSync(folder)
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => join(folder, name));
}

async function generated(target: (typeof TARGETS)[number]): Promise<string> {
  const text = readFileSync('schema.graphql', 'utf8');
  return codegen({
    filename: target.output,
    schema: parse(text),
    schemaAst: buildSchema(text),
    documents: documentFiles(target.documents).map((location) => ({
      location,
      document: parse(readFileSync(location, 'utf8')),
    })),
    // The header and the operation maps first (prepended and appended), then the types.
    plugins: [{ operationMap: { documentsFrom: target.documents } }, { typescriptOperations: {} }],
    pluginMap: { operationMap, typescriptOperations },
    config: CONFIG,
  });
}

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const target of TARGETS) {
  const output = await generated(target);
  let current = '';
  try {
    current = readFileSync(target.output, 'utf8');
  } catch {}
  if (current === output) continue;
  if (check) stale.push(target.output);
  else writeFileSync(target.output, output);
}
if (stale.length > 0) {
  console.error(`${stale.join(', ')} out of date: run npm run codegen`);
  process.exit(1);
}
console.log(check ? 'the generated operation types are up to date' : 'wrote the generated operation types');
