/**
 * Compiled execution (graphql-jit) for the fixed operations the REST layer runs: each is compiled
 * once into a function that walks its selection without graphql-js's per-field interpretation
 * (about a fifth of the CPU of a list of 500). Every other document, `/graphql` clients' included,
 * runs on graphql-js.
 *
 * Where graphql-jit differs from graphql-js, and what this does about it (one case each in
 * test/unit/compiled-execution.test.ts):
 *   - a field left out by `@include`/`@skip` is a property set to `undefined`, where graphql-js
 *     leaves none: JSON omits it, and the REST shapes treat undefined as absent (deleting such
 *     properties after execution cost a list of 500 about 8% of its CPU);
 *   - its default mode gives every spread of a fragment the directives of the first one: the
 *     path-based mode evaluates each where it stands;
 *   - it remembers a fragment's fields by the fragment's node, across compilations, and the REST
 *     documents share their fragments' nodes: each compilation gets a private copy;
 *   - envelop's own graphql-jit plugin keeps one compiled operation per document whatever the
 *     operation name: here it is one per document and name.
 * Fields of conditional spreads come in another order than graphql-js's (where each first appears
 * in any spread, included or not): the REST shapes impose the legacy property order themselves.
 */
import { type DocumentNode, type ExecutionArgs, type GraphQLSchema, parse, print } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/**
 * Compiles each (document, operation name) once. The document is the one execution receives, which
 * a later plugin may have rewritten (the response cache adds the fields it tracks, memoized per
 * document); those derive from the registered documents, so the cache stays bounded.
 */
function compiler(schema: GraphQLSchema) {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  return function compiledFor(document: DocumentNode, operationName: string): CompiledQuery | null {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    let query = byName.get(operationName);
    if (query === undefined) {
      // A private copy: graphql-jit remembers a fragment's fields by its node, with the conditions
      // of the spread it first compiled, and the REST documents share their fragments' nodes.
      const result = compileQuery(schema, parse(print(document)), operationName, {
        useExperimentalPathBasedSkipInclude: true,
        // Yoga serialises the answer (and the REST layer reshapes it first).
        customJSONSerializer: false,
      });
      query = isCompiledQuery(result) ? result : null;
      byName.set(operationName, query);
    }
    return query;
  };
}

/**
 * Runs the operations of the given documents compiled; any other document runs as Yoga runs it.
 * Placed before the response cache, so that the cache wraps the compiled execution.
 */
export function useCompiledExecution(schema: GraphQLSchema, documents: Iterable<DocumentNode>): Plugin {
  const registered = new WeakSet(documents);
  const compiledFor = compiler(schema);
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!registered.has(args.document) || !args.operationName) return;
      const interpreted = executeFn;
      setExecuteFn((execution: ExecutionArgs) => {
        const query = execution.operationName
          ? compiledFor(execution.document, execution.operationName)
          : null;
        if (!query) return interpreted(execution);
        const { rootValue, contextValue, variableValues } = execution;
        return query.query(rootValue, contextValue, variableValues);
      });
    },
  };
}
