/** The Warning header (src/lib/warning.ts): RFC 7234 form, one value per warning, each once. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addWarning, warningValue } from '../../src/lib/warning.ts';

const response = () => new ServerResponse(new IncomingMessage(new Socket()));

describe('addWarning', () => {
  it('writes 299 warnings as quoted strings, each once, in the order given', () => {
    const res = response();
    addWarning(res, 'first');
    addWarning(res, 'second');
    addWarning(res, 'first');
    expect(res.getHeader('Warning')).toEqual(['299 - "first"', '299 - "second"']);
  });

  it('escapes what would end the quoted string, and keeps the value a valid header', () => {
    expect(warningValue('say "hi" \\ bye')).toBe('299 - "say \\"hi\\" \\\\ bye"');
    expect(warningValue('paramètre\nignoré')).toBe('299 - "param?tre?ignor?"');
    const res = response();
    expect(() => addWarning(res, 'éà€\r\n"')).not.toThrow();
  });

  it('does nothing once the headers are sent', () => {
    const res = response();
    Object.defineProperty(res, 'headersSent', { value: true });
    addWarning(res, 'late');
    expect(res.getHeader('Warning')).toBeUndefined();
  });
});
