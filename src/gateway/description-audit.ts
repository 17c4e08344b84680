/**
 * The schema is the documentation front ends are written against: every type, field, argument,
 * input field and enum value should say what it is, and no root field should take an untyped
 * `JSON` argument (GraphiQL can neither show nor complete one). test/schema/descriptions.test.ts
 * holds the schema to both.
 */
import {
  type GraphQLArgument,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';

export interface DescriptionCoverage {
  /** Elements counted: types, fields, arguments, input fields, enum values. */
  total: number;
  described: number;
  /** Schema coordinates (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) without one. */
  missing: string[];
}

const described = (text: string | null | undefined) => typeof text === 'string' && text.trim() !== '';

/** Types the schema defines itself (not introspection's, not the specified scalars). */
function ownTypes(schema: GraphQLSchema): GraphQLNamedType[] {
  return Object.values(schema.getTypeMap()).filter(
    (type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type),
  );
}

export function descriptionCoverage(schema: GraphQLSchema): DescriptionCoverage {
  const elements: Array<[coordinate: string, description: string | null | undefined]> = [];
  const argumentsOf = (owner: string, args: readonly GraphQLArgument[]) => {
    for (const arg of args) elements.push([`${owner}(${arg.name}:)`, arg.description]);
  };
  for (const type of ownTypes(schema)) {
    elements.push([type.name, type.description]);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        elements.push([`${type.name}.${field.name}`, field.description]);
        argumentsOf(`${type.name}.${field.name}`, field.args);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        elements.push([`${type.name}.${field.name}`, field.description]);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) elements.push([`${type.name}.${value.name}`, value.description]);
    }
  }
  const missing = elements.filter(([, description]) => !described(description)).map(([where]) => where);
  return { total: elements.length, described: elements.length - missing.length, missing };
}

/** Root-field arguments whose type is the `JSON` scalar, or a list of it. */
export function rootJsonArguments(schema: GraphQLSchema): string[] {
  const found: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      for (const arg of field.args)
        if (getNamedType(arg.type).name === 'JSON') found.push(`${root.name}.${field.name}(${arg.name}:)`);
    }
  }
  return found;
}
