/** Recognising database errors that carry domain meaning, on both providers. */

/** Prisma's unique-constraint violation (P2002), e.g. a concurrent insert of the same key. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2002';
}
