/**
 * The one executor of both transports: an operation runs the same way whether the REST layer runs
 * it or a `/graphql` client sends it. Each operation, for each set of values of the variables its
 * `@skip` / `@include` read, runs compiled by graphql-jit once it is known, and interpreted by
 * graphql-js until then. (Measurements: bench/README.md, docs/performance.md.)
 *
 * Why compile clients' documents too, and how far:
 *   - Interpreting costs, per field and per request, what compiling costs once: with graphql-js,
 *     `/graphql` served the REST layer's own operations well below REST's speed.
 *   - Compiling costs many executions' worth, and a document may be sent once. A client's operation
 *     is compiled once it has run `compileAfter` times, so one-off documents stay interpreted; the
 *     service's own documents (`trusted`: the REST layer's, fixed and few) at their first execution.
 *   - Someone sending many distinct documents, each often enough, must buy neither CPU nor memory:
 *     compiling clients' documents has a time budget (a token bucket of `compileMsPerSecond`),
 *     their compiled variants are kept within `maxCompiledFields` selected fields (the least
 *     recently run go first), and plans are kept by document in a WeakMap, so Yoga's parse cache
 *     (an LRU by document text) bounds those a client keeps alive.
 *   - Introspection and subscriptions stay with graphql-js (rare; graphql-jit's subscriptions are
 *     its own), as does an operation with a variable of a recursive input type (graphql-jit
 *     generates its coercion without end).
 *
 * Where graphql-jit answers otherwise than graphql-js, and what is done (each a case in
 * test/unit/execution.test.ts):
 *   - `@skip` / `@include`: a field left out was an `undefined` property, the fields of conditional
 *     spreads came in another order (where each first appears in any spread, included or not), and
 *     its default mode applied the first spread's conditions to every spread of a fragment,
 *     remembered in the fragment's nodes across documents. Each set of condition values is compiled
 *     on its own, from a copy of the document with the conditions decided: graphql-jit sees none.
 *   - Errors carried a line and column but no nodes (Yoga rebuilds the errors it masks and
 *     serializes from their nodes: the locations were lost), came after `data`, and those it
 *     raises itself (a null in a non-null field, a value its type cannot serialize) wrapped no
 *     original error (so Yoga did not mask them): rebuilt as graphql-js's `locatedError` builds
 *     them, `errors` first, its own errors masked as unexpected (graphql-js shows the message of two
 *     of them: a list field whose value is no list, an abstract type resolved to no type).
 *   - Variables it refuses get its own messages, without locations (nothing has run then):
 *     graphql-js runs the operation and reports them.
 *   - Left as they are, as the specification allows: errors in another order; each failing field
 *     of an object that a non-null field nulls is reported (graphql-js stops at the first); a field
 *     without a resolver is read as a property (graphql-js would call a function or await a promise
 *     found there: Pothos types an exposed field's parent with the field's value).
 *   - Left as they are, as graphql-jit's `disableLeafSerialization` asks, on the assurances it
 *     asks for: a String, Int, Boolean or enum value is answered as the field gives it, where
 *     graphql-js converts it (a number for a String) or reports it (a float for an Int). Pothos
 *     types each resolver's result and each exposed field's parent by the field's type, the read
 *     model decodes the drivers' values by kind (test/schema/resource-fields.test.ts), and the
 *     schema has no enum whose values are not its names and no ID or Float output field, whose
 *     serializers would change a correct value (test/schema/schema.test.ts). Custom scalars
 *     (DateTime, JSON) are serialized as graphql-js does.
 */
import {
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type TypeNode,
  typeFromAST,
  type VariableDefinitionNode,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

export interface ExecutionOptions {
  /** Documents the service runs itself (the REST layer's): compiled on their first execution. */
  trusted?: Iterable<DocumentNode>;
  /** Executions of a client's operation (one variant of it) that run interpreted before it is compiled. */
  compileAfter?: number;
  /** Fields of clients' compiled variants kept at most; the least recently run go first. */
  maxCompiledFields?: number;
  /** Milliseconds of compilation of clients' documents allowed per second, on average (a burst of 20 s worth). */
  compileMsPerSecond?: number;
}

export const EXECUTION_DEFAULTS: Required<Omit<ExecutionOptions, 'trusted'>> = {
  compileAfter: 10,
  maxCompiledFields: 10_000,
  compileMsPerSecond: 25,
};

/** Variants of a client's operation tracked (counted or compiled) at most; a trusted one's, all. */
const MAX_VARIANTS = 8;

type PromiseOrValue<T> = T | Promise<T>;

const isPromise = <T>(value: PromiseOrValue<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/** One set of values of the variables `@skip` and `@include` read. */
interface Variant {
  runs: number;
  /** Compiled; null when graphql-jit refused it (it then runs interpreted). */
  query?: CompiledQuery | null;
  /** The client's field nodes, by where they start (graphql-jit's errors carry only that). */
  fieldsAt?: ReadonlyMap<string, FieldNode>;
  /** Fields selected: its share of `maxCompiledFields`. */
  fields: number;
  /** A trusted document's: never dropped. */
  pinned: boolean;
}

interface OperationPlan {
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** The variables `@skip` / `@include` read, in a fixed order: their values name the variant. */
  conditionVariables: readonly VariableDefinitionNode[];
  variants: Map<string, Variant>;
}

const isConditional = (directive: DirectiveNode) =>
  directive.name.value === 'skip' || directive.name.value === 'include';

/** Whether the directives of a selection leave it in, for the given values of the variables. */
function included(
  directives: readonly DirectiveNode[] | undefined,
  values: ReadonlyMap<string, boolean>,
): boolean {
  for (const directive of directives ?? []) {
    if (!isConditional(directive)) continue;
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    const value =
      condition?.kind === Kind.BOOLEAN
        ? condition.value
        : condition?.kind === Kind.VARIABLE
          ? values.get(condition.name.value)
          : undefined;
    if (directive.name.value === 'skip' ? value === true : value !== true) return false;
  }
  return true;
}

/**
 * Whether a variable's type is an input object that can hold itself: graphql-jit generates the
 * coercion of such a variable without end (until the process runs out of memory).
 */
function isRecursiveInput(schema: GraphQLSchema, typeNode: TypeNode): boolean {
  const type = typeFromAST(schema, typeNode);
  const named = type && getNamedType(type);
  if (!isInputObjectType(named)) return false;
  const path = new Set<GraphQLInputObjectType>();
  const acyclic = new Set<GraphQLInputObjectType>();
  const cyclic = (input: GraphQLInputObjectType): boolean => {
    if (path.has(input)) return true;
    if (acyclic.has(input)) return false;
    path.add(input);
    const found = Object.values(input.getFields()).some((field) => {
      const fieldType = getNamedType(field.type);
      return isInputObjectType(fieldType) && cyclic(fieldType);
    });
    path.delete(input);
    if (!found) acyclic.add(input);
    return found;
  };
  return cyclic(named);
}

/**
 * The plan of an operation, or null when it always runs interpreted: a subscription, an
 * introspection query (`__schema`, `__type`), a variable of a recursive input type, an operation
 * graphql-js will refuse to pick.
 */
function planOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationPlan | null {
  let operation: OperationDefinitionNode | undefined;
  let operations = 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations++;
      if (operationName ? definition.name?.value === operationName : !operation) operation = definition;
    }
  }
  if (!operation || (!operationName && operations > 1) || operation.operation === 'subscription') return null;
  if (operation.variableDefinitions?.some((definition) => isRecursiveInput(schema, definition.type)))
    return null;
  const conditionNames = new Set<string>();
  const visited = new Set<string>();
  let introspection = false;
  const walk = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      for (const directive of selection.directives ?? []) {
        const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
        if (isConditional(directive) && condition?.kind === Kind.VARIABLE)
          conditionNames.add(condition.name.value);
      }
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__schema' || selection.name.value === '__type') introspection = true;
        if (selection.selectionSet) walk(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  if (introspection) return null;
  const conditionVariables = (operation.variableDefinitions ?? []).filter((definition) =>
    conditionNames.has(definition.variable.name.value),
  );
  return { operation, fragments, conditionVariables, variants: new Map() };
}

/**
 * The variant's key: the condition variables' values (`1`, `0`), or undefined when one is not a
 * boolean (graphql-js then reports it, or decides what its default makes of it).
 */
function variantKey(plan: OperationPlan, variables: Readonly<Record<string, unknown>> | null | undefined) {
  let key = '';
  for (const definition of plan.conditionVariables) {
    let value = variables?.[definition.variable.name.value];
    if (value === undefined && definition.defaultValue?.kind === Kind.BOOLEAN)
      value = definition.defaultValue.value;
    if (typeof value !== 'boolean') return undefined;
    key += value ? '1' : '0';
  }
  return key;
}

const locationKey = ({ line, column }: { line: number; column: number }) => `${line}:${column}`;

interface Specialized {
  document: DocumentNode;
  fields: number;
  fieldsAt: ReadonlyMap<string, FieldNode>;
}

/**
 * The document graphql-jit compiles for one variant: the operation and the fragments it uses, with
 * each `@skip` / `@include` decided (the selections left out are gone, the others lose those
 * directives). graphql-jit then has no condition to evaluate, and what it answers is what
 * graphql-js answers: no property for a field left out, fields in the order graphql-js gives them.
 * Every node is a copy: graphql-jit writes its bookkeeping into the nodes it compiles (and
 * remembered a fragment's conditions by its node, across the documents sharing it). The copies
 * keep their locations in the client's document, for errors.
 */
function specialize(plan: OperationPlan, key: string): Specialized {
  const values = new Map(
    plan.conditionVariables.map((definition, i) => [definition.variable.name.value, key[i] === '1']),
  );
  let fields = 0;
  const fieldsAt = new Map<string, FieldNode>();
  const fragments = new Map<string, FragmentDefinitionNode>();
  const kept = (directives: readonly DirectiveNode[] | undefined) =>
    directives?.filter((directive) => !isConditional(directive));
  const copy = (selectionSet: SelectionSetNode): SelectionSetNode => ({
    ...selectionSet,
    selections: selectionSet.selections.flatMap((selection): SelectionNode[] => {
      if (!included(selection.directives, values)) return [];
      if (selection.kind === Kind.FIELD) {
        fields++;
        if (selection.loc) fieldsAt.set(locationKey(selection.loc.startToken), selection);
        const field: FieldNode = { ...selection, directives: kept(selection.directives) };
        return [selection.selectionSet ? { ...field, selectionSet: copy(selection.selectionSet) } : field];
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        return [
          {
            ...selection,
            directives: kept(selection.directives),
            selectionSet: copy(selection.selectionSet),
          },
        ];
      }
      const name = selection.name.value;
      const fragment = plan.fragments.get(name);
      if (fragment && !fragments.has(name)) {
        // Taken first: validation refuses fragment cycles, and each is copied once.
        fragments.set(name, fragment);
        fragments.set(name, { ...fragment, selectionSet: copy(fragment.selectionSet) });
      }
      return [{ ...selection, directives: kept(selection.directives) }];
    }),
  });
  const operation = { ...plan.operation, selectionSet: copy(plan.operation.selectionSet) };
  return {
    document: { kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] },
    fields,
    fieldsAt,
  };
}

/**
 * An error of compiled execution made as graphql-js makes it (`locatedError`): located by the
 * client's field nodes (Yoga rebuilds the errors it masks or serializes from their nodes, and
 * graphql-jit's carry only line and column), wrapping the error it comes from. The errors
 * graphql-jit raises itself (a null in a non-null field, a value its type cannot serialize) wrap
 * none: they get one, so that they are masked as unexpected, as graphql-js's null in a non-null
 * field is.
 */
function locatedLikeGraphQLJs(error: GraphQLError, fieldsAt: ReadonlyMap<string, FieldNode>): GraphQLError {
  const { originalError } = error;
  // A resolver's error that is already located stands as it is, as in graphql-js.
  if (originalError instanceof GraphQLError && Array.isArray(originalError.path)) return originalError;
  const nodes = (error.locations ?? []).flatMap((location) => fieldsAt.get(locationKey(location)) ?? []);
  return new GraphQLError(error.message, {
    nodes: nodes.length > 0 ? nodes : undefined,
    path: error.path,
    originalError: originalError ?? new Error(error.message),
  });
}

/** A token bucket of milliseconds of compilation. */
function compileBudget(msPerSecond: number) {
  const burst = msPerSecond * 20;
  let available = burst;
  let since = performance.now();
  return {
    allows(): boolean {
      const now = performance.now();
      available = Math.min(burst, available + ((now - since) * msPerSecond) / 1000);
      since = now;
      return available > 0;
    },
    spend(ms: number) {
      available -= ms;
    },
  };
}

/** Plans by document (Yoga's parse cache keeps a client's while its text is asked), then operation name. */
function planCache(schema: GraphQLSchema) {
  const plans = new WeakMap<DocumentNode, Map<string, OperationPlan | null>>();
  return (document: DocumentNode, operationName: string | null | undefined) => {
    let byName = plans.get(document);
    if (!byName) {
      byName = new Map();
      plans.set(document, byName);
    }
    const name = operationName ?? '';
    let plan = byName.get(name);
    if (plan === undefined) {
      plan = planOf(schema, document, operationName);
      byName.set(name, plan);
    }
    return plan;
  };
}

/** graphql-jit's compiled query of a specialized document, or null when it refuses it. */
function compiledQuery(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined) {
  try {
    const compiled = compileQuery(schema, document, operationName, {
      // Yoga serializes the answer (and the REST layer reshapes it first).
      customJSONSerializer: false,
      // String, Int, Boolean and enum values are taken as their fields give them (see the module's
      // comment): the serializers' checks cost each leaf of each item two arrays for an error that
      // never comes (a light list of 500: 2.2 → 1.4 MB allocated per request).
      disableLeafSerialization: true,
    });
    if (isCompiledQuery(compiled)) return compiled;
  } catch {
    // What graphql-jit cannot compile runs interpreted.
  }
  return null;
}

/**
 * Compiles variants: a trusted one's whenever asked; clients' within the time budget, and kept
 * within `maxCompiledFields` fields, the least recently run dropped first (interpreted again, and
 * counted anew).
 */
function variantCompiler(schema: GraphQLSchema, maxCompiledFields: number, compileMsPerSecond: number) {
  /** Clients' compiled variants, least recently run first. */
  const recent = new Set<Variant>();
  let recentFields = 0;
  const budget = compileBudget(compileMsPerSecond);

  const keep = (variant: Variant) => {
    recent.add(variant);
    recentFields += variant.fields;
    for (const oldest of recent) {
      if (recentFields <= maxCompiledFields || oldest === variant) break;
      recent.delete(oldest);
      recentFields -= oldest.fields;
      oldest.query = undefined;
      oldest.fieldsAt = undefined;
      oldest.runs = 0;
    }
  };

  return {
    compile(plan: OperationPlan, key: string, variant: Variant) {
      if (!variant.pinned && !budget.allows()) return;
      const started = performance.now();
      const { document, fields, fieldsAt } = specialize(plan, key);
      variant.query = compiledQuery(schema, document, plan.operation.name?.value);
      variant.fieldsAt = fieldsAt;
      variant.fields = fields;
      if (variant.pinned) return;
      budget.spend(performance.now() - started);
      if (variant.query) keep(variant);
    },
    /** A client's compiled variant has just run: it is now the most recent. */
    ran(variant: Variant) {
      recent.delete(variant);
      recent.add(variant);
    },
  };
}

type Execute = (execution: ExecutionArgs) => PromiseOrValue<ExecutionResult>;

/** A compiled execution's result as graphql-js answers it (see the top of this file). */
function settledLikeGraphQLJs(
  result: ExecutionResult,
  fieldsAt: ReadonlyMap<string, FieldNode>,
  execution: ExecutionArgs,
  interpreted: Execute,
): PromiseOrValue<ExecutionResult> {
  if (!result.errors) return result;
  // Variables graphql-jit refused (nothing ran): graphql-js reports them in its words.
  if (!('data' in result)) return interpreted(execution);
  // `errors` first, where graphql-js puts them.
  return {
    errors: result.errors.map((error) => locatedLikeGraphQLJs(error, fieldsAt)),
    data: result.data,
  };
}

/**
 * The one executor of both transports: each operation variant runs compiled by graphql-jit, once
 * trusted (the REST layer's documents: from their first execution) or run `compileAfter` times
 * (a client's), and interpreted by graphql-js otherwise (see the top of this file).
 */
export function useExecution(schema: GraphQLSchema, options: ExecutionOptions = {}): Plugin {
  const { compileAfter, maxCompiledFields, compileMsPerSecond } = { ...EXECUTION_DEFAULTS, ...options };
  const trusted = new WeakSet(options.trusted ?? []);
  const planFor = planCache(schema);
  const compiler = variantCompiler(schema, maxCompiledFields, compileMsPerSecond);

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const pinned = trusted.has(args.document);
      const interpreted: Execute = executeFn;
      setExecuteFn((execution: ExecutionArgs) => {
        // The document executed, which a later plugin may have derived from the request's (the
        // response cache adds the fields it tracks, memoized per document).
        const plan = planFor(execution.document, execution.operationName);
        if (!plan) return interpreted(execution);
        const key = variantKey(plan, execution.variableValues);
        if (key === undefined) return interpreted(execution);
        let variant = plan.variants.get(key);
        if (!variant) {
          if (!pinned && plan.variants.size >= MAX_VARIANTS) return interpreted(execution);
          variant = { runs: 0, fields: 0, pinned };
          plan.variants.set(key, variant);
        }
        if (variant.query === undefined && ++variant.runs > (pinned ? 0 : compileAfter)) {
          compiler.compile(plan, key, variant);
        }
        const { query, fieldsAt } = variant;
        if (!query || !fieldsAt) return interpreted(execution);
        if (!pinned) compiler.ran(variant);
        const result = query.query(execution.rootValue, execution.contextValue, execution.variableValues);
        return isPromise(result)
          ? result.then((settled) => settledLikeGraphQLJs(settled, fieldsAt, execution, interpreted))
          : settledLikeGraphQLJs(result, fieldsAt, execution, interpreted);
      });
    },
  };
}
