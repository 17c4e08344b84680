/**
 * Generates both Prisma clients (SQLite and PostgreSQL) and the Pothos types. Runs on `npm ci`
 * (postinstall): generated code is not committed.
 *
 * Each client then loads its query compiler from a `.wasm` file written beside it, instead of the
 * module Prisma generates an import of, which holds the compiler as a base64 string: V8 kept that
 * module's source and its string literal for the life of the process (docs/performance.md, Memory).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { prismaPaths } from '../src/db/database-url.ts';

const targets = [
  { schema: prismaPaths.sqlite.schema, url: 'file:./data/generate.db', client: 'src/generated/sqlite' },
  {
    schema: prismaPaths.postgresql.schema,
    url: 'postgresql://localhost:5432/generate',
    client: 'src/generated/postgresql',
  },
];

/** The compiler's file name, beside the generated `internal/class.ts` that reads it. */
const QUERY_COMPILER_FILE = 'query_compiler.wasm';

const BASE64_LOADER =
  /getQueryCompilerWasmModule: async \(\) => \{\s*const \{ wasm \} = await import\("([^"]+\.wasm-base64\.mjs)"\)\s*return await decodeBase64AsWasm\(wasm\)\s*\}/;

async function loadCompilerFromFile(classFile: string): Promise<void> {
  const source = readFileSync(classFile, 'utf8');
  const match = BASE64_LOADER.exec(source);
  // Prisma's generated loader changed shape (another version than the one stack-notes pins):
  // better to stop the install than to ship a client that may not load.
  if (!match)
    throw new Error(`${classFile}: Prisma's query compiler loader not found; update scripts/db-generate.ts`);
  const { wasm } = (await import(match[1]!)) as { wasm: string };
  writeFileSync(join(dirname(classFile), QUERY_COMPILER_FILE), Buffer.from(wasm, 'base64'));
  const loader = [
    'getQueryCompilerWasmModule: async () => {',
    "    // Written by scripts/db-generate.ts from Prisma's base64 module.",
    "    const { readFile } = await import('node:fs/promises')",
    `    return new WebAssembly.Module(await readFile(new URL('./${QUERY_COMPILER_FILE}', import.meta.url)))`,
    '  }',
  ].join('\n');
  writeFileSync(
    classFile,
    source
      .replace(match[0], loader)
      // Unused now, and a type error for `noUnusedLocals` readers.
      .replace(/async function decodeBase64AsWasm\([\s\S]*?\n\}\n/, ''),
  );
}

for (const { schema, url, client } of targets) {
  // The CLI needs a URL of the right scheme even though generate never connects.
  execFileSync('npx', ['prisma', 'generate', '--schema', schema], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  await loadCompilerFromFile(join(client, 'internal', 'class.ts'));
}
