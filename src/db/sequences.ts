/** Sequences of explicit ids: after rows were inserted with ids of their own (an import). */
import { db, provider } from './client.ts';

/**
 * PostgreSQL sequences do not move when rows are inserted with explicit ids: move each past the
 * largest id, never back (an oid once given, even deleted since, must not name another resource).
 * SQLite's AUTOINCREMENT keeps the largest id ever inserted by itself.
 */
export async function moveSequencesPastImportedIds(): Promise<void> {
  if (provider !== 'postgresql') return;
  for (const table of ['Person', 'Group', 'Resource']) {
    const [sequence] = await db.$queryRawUnsafe<{ name: string }[]>(
      `SELECT pg_get_serial_sequence('"${table}"', 'oid') AS name`,
    );
    if (!sequence?.name) continue;
    const [state] = await db.$queryRawUnsafe<
      { last: bigint | number; called: boolean; max: number | null }[]
    >(
      `SELECT last_value AS last, is_called AS called, (SELECT MAX(oid) FROM "${table}") AS max FROM ${sequence.name}`,
    );
    const used = Math.max(Number(state!.last) - (state!.called ? 0 : 1), Number(state!.max ?? 0));
    await db.$queryRawUnsafe(`SELECT setval('${sequence.name}', ${used + 1}, false)`);
  }
}
