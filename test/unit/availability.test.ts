/** Which errors mean "the database is unavailable", as drivers and Prisma report them. */
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/availability.ts';

const prismaError = (code: string, cause?: object) =>
  Object.assign(new Error('Invalid `db.person.findFirst()` invocation'), {
    code,
    meta: cause ? { driverAdapterError: { name: 'DriverAdapterError', cause } } : {},
  });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['PostgreSQL unreachable (P1001)', prismaError('P1001', { kind: 'DatabaseNotReachable' })],
    ['a connection closed by the server (P1017)', prismaError('P1017', { kind: 'ConnectionClosed' })],
    ['SQLite busy past its time-out (P1008)', prismaError('P1008', { kind: 'SocketTimeout' })],
    ['a raw query on an unreachable server (P2010)', prismaError('P2010', { kind: 'DatabaseNotReachable' })],
    ['PostgreSQL shutting down (57P01)', prismaError('P2010', { kind: 'postgres', originalCode: '57P01' })],
    [
      'a refused socket',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['pg losing its connection', new Error('Connection terminated unexpectedly')],
    ['one wrapped by GraphQL', { message: 'Unexpected error.', originalError: prismaError('P1001') }],
  ])('recognises %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (P2002)', prismaError('P2002', { kind: 'UniqueConstraintViolation' })],
    ['a missing record (P2025)', prismaError('P2025')],
    ['a wrong password (P1000)', prismaError('P1000', { kind: 'AuthenticationFailed' })],
    ['a programming error', new TypeError('x is undefined')],
    ['nothing', undefined],
  ])('does not take %s for an outage', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
