import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { FieldKind } from '../catalogue/resource-fields.ts';
import { builder } from './builder.ts';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);

/** The GraphQL type of each kind of catalogued value (src/catalogue/resource-fields.ts). */
export const SCALAR_OF_KIND = {
  text: 'String',
  int: 'Int',
  boolean: 'Boolean',
  date: 'DateTime',
  json: 'JSON',
} as const satisfies Record<FieldKind, string>;
