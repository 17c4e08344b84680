/**
 * The two speed anchors of ../shared/anchors/, served over the same PostgreSQL bench database as
 * the service: PostGraphile v5 (what a team would pick instead) and the one-statement limit (one
 * SQL statement per read, bare driver, bare handler). They are not part of the project: install
 * each once beside it (their READMEs say how) and point the bench at them:
 *
 *   POSTGRAPHILE_DIR (default /tmp/pg-anchor), READ_LIMIT_DIR (default /tmp/read-limit)
 *
 * An anchor that is not installed is left out of the run, with a line saying how to add it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Anchor {
  name: string;
  port: number;
  child: ChildProcess;
  /** The PostGraphile documents, by scenario key. */
  documents?: Record<string, { query: string; variables?: Record<string, unknown> }>;
}

function start(
  name: string,
  directory: string,
  args: string[],
  env: Record<string, string>,
  ready: (line: string) => number | undefined,
): Promise<Anchor> {
  const child = spawn('node', args, {
    cwd: directory,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      for (const line of output.split('\n')) {
        const port = ready(line);
        if (port !== undefined) resolve({ name, port, child });
      }
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
  });
}

export async function startAnchors(databaseUrl: string, ports: { postgraphile: number; limit: number }) {
  const anchors: { postgraphile?: Anchor; limit?: Anchor; missing: string[] } = { missing: [] };
  const postgraphileDir = process.env.POSTGRAPHILE_DIR ?? '/tmp/pg-anchor';
  if (existsSync(join(postgraphileDir, 'node_modules', 'postgraphile'))) {
    anchors.postgraphile = await start(
      'PostGraphile',
      postgraphileDir,
      ['--import', './node20-polyfill.mjs', 'server.mjs'],
      { DATABASE_URL: databaseUrl, PORT: String(ports.postgraphile) },
      (line) => (line.startsWith('{"port"') ? JSON.parse(line).port : undefined),
    );
    anchors.postgraphile.documents = JSON.parse(readFileSync(join(postgraphileDir, 'queries.json'), 'utf8'));
  } else {
    anchors.missing.push(
      `PostGraphile: cp -r ../shared/anchors/postgraphile ${postgraphileDir} && (cd ${postgraphileDir} && npm install)`,
    );
  }
  const limitDir = process.env.READ_LIMIT_DIR ?? '/tmp/read-limit';
  if (existsSync(join(limitDir, 'node_modules', 'pg'))) {
    anchors.limit = await start(
      'one-statement limit',
      limitDir,
      ['server.mjs'],
      { DATABASE_URL: databaseUrl, PORT: String(ports.limit) },
      (line) => (line.trim() === 'ready' ? ports.limit : undefined),
    );
  } else {
    anchors.missing.push(
      `one-statement limit: cp -r ../shared/anchors/one-statement ${limitDir} && (cd ${limitDir} && npm install)`,
    );
  }
  return anchors;
}
