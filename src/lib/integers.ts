/**
 * Integers as the databases store them. Ids and integer columns are 32-bit (PostgreSQL `integer`,
 * GraphQL `Int`): a larger number reaching a query is a database error, so every integer that comes
 * from outside is checked against this range first.
 */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

export function isInt32(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX;
}

/**
 * An id written as clients write them (`12`; never `012`, `+12`, `1e3`, `0x10`, ` 12` or `12.0`)
 * within the id range, or undefined: such a text names nothing.
 */
export function parseId(text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9]\d{0,9}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= INT32_MAX ? id : undefined;
}

/** A whole number written in decimal (an optional minus sign, digits) within the 32-bit range. */
export function parseInt32(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^-?\d{1,10}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return isInt32(value) ? value : undefined;
}
