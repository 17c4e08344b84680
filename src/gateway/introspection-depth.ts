/**
 * The depth limit of introspection. graphql-armor's depth limit skips `__schema` and `__type`, so
 * `__schema { types { fields { type { fields { … } } } } }` could nest as deep as the token limit
 * allows. Introspection cannot share the data limit either: the query GraphiQL sends is 15 fields
 * deep (a type reference unwraps up to nine `ofType`). So introspection gets a limit of its own,
 * counted like armor counts data: fields from the root field to the deepest leaf, through fragments.
 */
import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

function depthOf(
  selectionSet: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  visiting: Set<string>,
): number {
  let deepest = 0;
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, fragments, visiting));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, visiting));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A fragment cycle is reported by graphql's own rule; here it only must not loop.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      deepest = Math.max(deepest, depthOf(fragment.selectionSet, fragments, visiting));
      visiting.delete(name);
    }
  }
  return deepest;
}

export function introspectionDepthRule(maxDepth: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map(
      context
        .getDocument()
        .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((fragment) => [fragment.name.value, fragment]),
    );
    return {
      Field(node) {
        if (!INTROSPECTION_ROOTS.has(node.name.value)) return;
        const depth = 1 + depthOf(node.selectionSet, fragments, new Set());
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`Introspection depth limit of ${maxDepth} exceeded, found ${depth}.`, {
              nodes: [node],
            }),
          );
        }
      },
    };
  };
}

export function useIntrospectionDepthLimit(maxDepth: number): Plugin {
  return {
    onValidate: ({ addValidationRule }) => {
      addValidationRule(introspectionDepthRule(maxDepth));
    },
  };
}
