import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/http/query-string.ts';

/** What Express's 'extended' query parser gives (express/lib/utils.js: qs with allowPrototypes). */
const extended = (query: string) => qs.parse(query, { allowPrototypes: true });

/** Query strings made of the pieces that decide how qs reads one. */
const piece = fc.constantFrom(
  'format',
  'nb',
  'type',
  'a',
  'A_b-9',
  '__proto__',
  'constructor',
  'toString',
  '0',
  '12',
  '=',
  '&',
  '+',
  '%',
  '%2',
  '%41',
  '%C3%A9',
  '%E2%9C',
  '%5B',
  '%5d',
  '[',
  ']',
  '[]',
  '.',
  ',',
  'é',
  ' ',
  '?',
  'utf8=%E2%9C%93',
);
const queryString = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));

describe('the query parser', () => {
  it('gives what Express’s extended parser gives, whatever the query string', () => {
    fc.assert(
      fc.property(queryString, (query) => {
        const parsed = parseQueryString(query);
        expect(parsed).toEqual(extended(query));
        expect(Object.keys(parsed)).toEqual(Object.keys(extended(query)));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['format=full', { format: 'full' }],
    ['nb=25&type=em&order=desc', { nb: '25', type: 'em', order: 'desc' }],
    ['q=un+mot%20et%C3%A9', { q: 'un mot eté' }],
    ['bad=%E2%9C', { bad: '%E2%9C' }],
    ['flag', { flag: '' }],
    ['a=b=c', { a: 'b=c' }],
    ['pids=a,b&pids=c', { pids: ['a,b', 'c'] }],
    ['a[b]=1', { a: { b: '1' } }],
    ['__proto__=x&y=1', { y: '1' }],
  ])('reads %s as qs does', (query, expected) => {
    expect(parseQueryString(query)).toEqual(expected);
    expect(parseQueryString(query)).toEqual(extended(query));
  });

  it('reads no query string as no parameter', () => {
    expect(parseQueryString('')).toEqual({});
    expect(parseQueryString(undefined)).toEqual({});
    expect(parseQueryString(null)).toEqual({});
  });
});
