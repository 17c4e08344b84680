/**
 * The generated Prisma clients load their query compiler from a `.wasm` file (scripts/db-generate.ts):
 * Prisma's own loader imports a module holding it as a base64 string, which stayed in the heap for
 * the life of the process (about 5 MB of the resident memory at rest).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const WASM_MAGIC = Buffer.from([0x00, 0x61, 0x73, 0x6d]);

describe.each(['sqlite', 'postgresql'])('the generated %s client', (provider) => {
  const internal = `src/generated/${provider}/internal`;

  it('imports no base64 module of the query compiler', () => {
    const source = readFileSync(`${internal}/class.ts`, 'utf8');
    expect(source).toContain('getQueryCompilerWasmModule');
    expect(source).not.toMatch(/wasm-base64/);
  });

  it('has the compiler beside it as a WebAssembly binary', () => {
    const file = `${internal}/query_compiler.wasm`;
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).subarray(0, 4)).toEqual(WASM_MAGIC);
  });
});
