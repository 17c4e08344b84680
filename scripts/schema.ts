/**
 * schema.graphql is the printed, sorted schema, checked in so that reviews show API changes.
 *
 *   tsx scripts/schema.ts print   write schema.graphql from the code
 *   tsx scripts/schema.ts check   exit 1 when schema.graphql differs from the code
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../src/gateway/schema.ts';

export const SCHEMA_FILE = 'schema.graphql';
export const printedSchema = () => `${printSchema(schema)}\n`;

const command = process.argv[2];
if (command === 'print') {
  writeFileSync(SCHEMA_FILE, printedSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
} else if (command === 'check') {
  let current = '';
  try {
    current = readFileSync(SCHEMA_FILE, 'utf8');
  } catch {}
  if (current !== printedSchema()) {
    console.error(`${SCHEMA_FILE} is out of date: run npm run schema:print`);
    process.exit(1);
  }
  console.log(`${SCHEMA_FILE} is up to date`);
} else {
  console.error('usage: tsx scripts/schema.ts print|check');
  process.exit(2);
}
