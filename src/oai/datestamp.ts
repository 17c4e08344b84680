/**
 * UTCdatetime as OAI-PMH 2.0 uses it (§3.3): responses always at the repository's granularity,
 * `YYYY-MM-DDThh:mm:ssZ`; requests at either granularity, a day standing for the whole of it.
 */
export type Granularity = 'day' | 'second';

export interface RequestDatestamp {
  granularity: Granularity;
  /** Its first second (a day: 00:00:00Z). */
  start: Date;
  /** Its last second (a day: 23:59:59Z), what an inclusive `until` means. */
  end: Date;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/**
 * `2026-11-27T10:09:26Z`: milliseconds dropped, as datestamps are to the second. A date, or the ISO
 * text of one in UTC (a DateTime of the operations' results).
 */
export function formatDatestamp(date: Date | string): string {
  return `${(typeof date === 'string' ? date : date.toISOString()).slice(0, 19)}Z`;
}

/** A `from` or `until` value, or null when it is not a real date and time of either granularity. */
export function parseRequestDatestamp(value: string): RequestDatestamp | null {
  const match = DAY.exec(value) ?? SECOND.exec(value);
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number) as number[];
  const time = Date.UTC(year!, month! - 1, day!, hour, minute, second);
  const start = new Date(time);
  // Date.UTC rolls 2026-02-30 over to March and 24:00 to the next day: a real value survives the round trip.
  const exact =
    start.getUTCFullYear() === year &&
    start.getUTCMonth() === month! - 1 &&
    start.getUTCDate() === day &&
    start.getUTCHours() === hour &&
    start.getUTCMinutes() === minute &&
    start.getUTCSeconds() === second;
  if (!exact) return null;
  const granularity: Granularity = match.length === 4 ? 'day' : 'second';
  return { granularity, start, end: granularity === 'day' ? new Date(time + 86_399_000) : start };
}
