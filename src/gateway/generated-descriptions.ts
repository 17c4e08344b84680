/**
 * Descriptions of the types plugins generate from a root field (result unions, `…Success`
 * wrappers, Relay connections and edges, PageInfo) and of the fields every error type shares:
 * written once here from the field they belong to, rather than repeated in every module.
 */
import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  isUnionType,
} from 'graphql';

type Described = { description?: string | null };

/** Sets a description where none was written. */
function describe(element: Described | undefined, description: string) {
  if (element && !element.description) element.description = description;
}

const PAGE_INFO: Record<string, string> = {
  hasNextPage: 'More items follow this page.',
  hasPreviousPage: 'Items precede this page.',
  startCursor: 'Cursor of the first item of the page (pass as `before`).',
  endCursor: 'Cursor of the last item of the page (pass as `after`).',
};

const CONNECTION_ARGUMENTS: Record<string, string> = {
  first: 'Items after `after`: at most this many (default 25, at most 500).',
  after: 'A cursor: the page starts after this item.',
  last: 'Items before `before`: at most this many.',
  before: 'A cursor: the page ends before this item.',
};

function describeResultTypes(root: GraphQLObjectType, field: GraphQLField<unknown, unknown>) {
  const coordinate = `\`${field.name}\``;
  const result: GraphQLNamedType = getNamedType(field.type);
  if (isUnionType(result)) {
    describe(
      result,
      `What ${coordinate} returns: its result, or one of the errors it expects (each implements \`Error\`).`,
    );
    for (const member of result.getTypes()) {
      if (!member.name.startsWith(root.name) || !member.name.endsWith('Success')) continue;
      describe(member, `The result of ${coordinate}.`);
      describe(member.getFields().data, `What ${coordinate} returns.`);
    }
  }
  if (isObjectType(result) && result.name.endsWith('Connection')) {
    describe(result, `A page of ${coordinate} (Relay cursor connection).`);
    for (const arg of field.args) {
      if (Object.hasOwn(CONNECTION_ARGUMENTS, arg.name)) describe(arg, CONNECTION_ARGUMENTS[arg.name]!);
    }
    const fields = result.getFields();
    describe(fields.edges, 'The items of the page, each with its cursor.');
    describe(fields.pageInfo, 'Where the page lies: cursors and whether more pages exist.');
    describe(fields.totalCount, 'Items matching, among those the viewer may read (counted only when asked).');
    const edge = getNamedType(fields.edges?.type ?? result);
    if (isObjectType(edge)) {
      describe(edge, `An item of ${coordinate} and its cursor.`);
      describe(edge.getFields().cursor, 'Pass as `after` (or `before`) to page from this item.');
      describe(edge.getFields().node, 'The item.');
    }
  }
}

export function describeGeneratedTypes(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) describeResultTypes(root, field);
  }
  const pageInfo = schema.getType('PageInfo');
  if (isObjectType(pageInfo)) {
    describe(pageInfo, 'Relay page information of a connection.');
    for (const [name, description] of Object.entries(PAGE_INFO))
      describe(pageInfo.getFields()[name], description);
  }
  const errorInterface = schema.getType('Error');
  if (isInterfaceType(errorInterface)) {
    for (const type of [errorInterface, ...schema.getPossibleTypes(errorInterface)]) {
      describe(type.getFields().code, 'The machine-readable code; REST answers with its HTTP status.');
      describe(type.getFields().message, 'A message for users, in French (legacy clients show it as it is).');
    }
  }
  return schema;
}
