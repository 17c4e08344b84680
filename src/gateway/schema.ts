/** Assembles the schema: loads every module for its side effects, then builds. */
import '../graphql/scalars.ts';
import '../graphql/errors.ts';
import '../modules/persons/persons.schema.ts';
import '../modules/privacy/export.schema.ts';
import '../modules/sessions/sessions.schema.ts';
import '../modules/groups/groups.schema.ts';
import '../modules/resources/resources.schema.ts';
import '../modules/lists/lists.schema.ts';
import '../modules/trees/trees.schema.ts';
import '../modules/peers/peers.schema.ts';
import '../modules/peers/notifications.schema.ts';
import '../modules/labs/labs.schema.ts';
import '../modules/audit/audit.schema.ts';
import '../modules/subscriptions/subscriptions.schema.ts';
import '../modules/harvest/harvest.schema.ts';
import '../modules/privacy/erasure.schema.ts';
import { lexicographicSortSchema } from 'graphql';
import { builder } from '../graphql/builder.ts';
import { describeGeneratedTypes } from './generated-descriptions.ts';

export const schema = describeGeneratedTypes(lexicographicSortSchema(builder.toSchema()));
