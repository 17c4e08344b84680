/**
 * The speed anchors of ../shared/anchors/, served over the same PostgreSQL bench database as the
 * service: PostGraphile v5 (what a team would pick instead), the one-statement limit (one SQL
 * statement per read, bare driver, bare handler) and the Express limit (that statement behind
 * Express 5 and the middleware the service runs: what a read under this design can reach). They
 * are not part of the project: install each once beside it (their READMEs say how) and point the
 * bench at them:
 *
 *   POSTGRAPHILE_DIR (default /tmp/pg-anchor), READ_LIMIT_DIR (default /tmp/read-limit),
 *   EXPRESS_LIMIT_DIR (default /tmp/express-limit, beside a copy of one-statement: see below)
 *
 * An anchor that is not installed is left out of the run, with a line saying how to add it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Anchor {
  name: string;
  port: number;
  child: ChildProcess;
  /** The PostGraphile documents, by scenario key. */
  documents?: Record<string, { query: string; variables?: Record<string, unknown> }>;
}

export interface Anchors {
  postgraphile?: Anchor;
  limit?: Anchor;
  expressLimit?: Anchor;
  /** How to install each anchor asked for but not found. */
  missing: string[];
}

function start(
  name: string,
  directory: string,
  args: string[],
  env: Record<string, string>,
  ready: (line: string) => number | undefined,
): Promise<Anchor> {
  // The runtime the bench runs on, which is the service's (npm run puts the project's
  // node_modules/.bin/node first in PATH): a bare `node` is whatever PATH finds, which outside npm
  // is the machine's own Node, and a ratio between two runtimes measures the runtimes.
  const child = spawn(process.execPath, args, {
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

/** An anchor whose `server.mjs` prints `ready` once it listens on PORT (the two limits). */
const startReady = (name: string, directory: string, databaseUrl: string, port: number) =>
  start(name, directory, ['server.mjs'], { DATABASE_URL: databaseUrl, PORT: String(port) }, (line) =>
    line.trim() === 'ready' ? port : undefined,
  );

const copyAndInstall = (anchor: string, directory: string) =>
  `cp -r ../shared/anchors/${anchor} ${directory} && (cd ${directory} && npm install)`;

/** Starts the anchors given a port, over `databaseUrl`. */
export async function startAnchors(
  databaseUrl: string,
  ports: { postgraphile?: number; limit?: number; expressLimit?: number },
): Promise<Anchors> {
  const anchors: Anchors = { missing: [] };
  const postgraphileDir = process.env.POSTGRAPHILE_DIR ?? '/tmp/pg-anchor';
  if (ports.postgraphile !== undefined) {
    if (existsSync(join(postgraphileDir, 'node_modules', 'postgraphile'))) {
      anchors.postgraphile = await start(
        'PostGraphile',
        postgraphileDir,
        ['--import', './node20-polyfill.mjs', 'server.mjs'],
        { DATABASE_URL: databaseUrl, PORT: String(ports.postgraphile) },
        (line) => (line.startsWith('{"port"') ? JSON.parse(line).port : undefined),
      );
      anchors.postgraphile.documents = JSON.parse(
        readFileSync(join(postgraphileDir, 'queries.json'), 'utf8'),
      );
    } else {
      anchors.missing.push(`PostGraphile: ${copyAndInstall('postgraphile', postgraphileDir)}`);
    }
  }

  const limitDir = process.env.READ_LIMIT_DIR ?? '/tmp/read-limit';
  const limitPort = ports.limit;
  if (limitPort !== undefined) {
    if (existsSync(join(limitDir, 'node_modules', 'pg'))) {
      anchors.limit = await startReady('one-statement limit', limitDir, databaseUrl, limitPort);
    } else {
      anchors.missing.push(`one-statement limit: ${copyAndInstall('one-statement', limitDir)}`);
    }
  }

  // Its server.mjs reads the statement from ../one-statement/server.mjs (one statement, one text):
  // the copy of one-statement must sit beside it, under that name.
  const expressDir = process.env.EXPRESS_LIMIT_DIR ?? '/tmp/express-limit';
  const statementDir = join(dirname(expressDir), 'one-statement');
  const expressPort = ports.expressLimit;
  if (expressPort !== undefined) {
    if (
      existsSync(join(expressDir, 'node_modules', 'express')) &&
      existsSync(join(statementDir, 'server.mjs'))
    ) {
      anchors.expressLimit = await startReady('Express limit', expressDir, databaseUrl, expressPort);
    } else {
      anchors.missing.push(
        `Express limit: cp -r ../shared/anchors/one-statement ${statementDir} && ${copyAndInstall('express-limit', expressDir)}`,
      );
    }
  }
  return anchors;
}

/** Stops the anchors `startAnchors` started. */
export function stopAnchors(anchors: Anchors): void {
  for (const anchor of [anchors.postgraphile, anchors.limit, anchors.expressLimit])
    anchor?.child.kill('SIGTERM');
}
