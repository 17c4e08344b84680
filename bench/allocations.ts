/**
 * What one request allocates, by function: `npm run bench:allocations -- '/api/liste?nb=500&format=light'`
 * (after `npm run build`). Starts `npm start`'s service on a bench database (ALLOC_DATABASE_URL,
 * default PostgreSQL 10k) with the inspector on loopback, sends the request ALLOC_WARMUP times
 * (compiled, cached as it will be), then ALLOC_REQUESTS times one after the other under V8's
 * sampling heap profiler, objects collected by scavenges and mark-compacts included, and prints
 * the bytes per request of the functions that allocated most (code that V8 made at run time, such
 * as graphql-jit's compiled queries, is named by its script id). ALLOC_PROFILE=file writes the
 * profile, which Chrome's DevTools open (Memory tab, "Load profile").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfigFile, freePort, startService } from './service-process.ts';
import { BENCH_TOKEN } from './token.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  scriptId: string;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

const path = process.argv[2] ?? '/api/liste?nb=500&format=light';
const databaseUrl =
  process.env.ALLOC_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rrs_bench_v4_10000';
const warmup = Number(process.env.ALLOC_WARMUP ?? 50);
const requests = Number(process.env.ALLOC_REQUESTS ?? 200);
const shown = Number(process.env.ALLOC_TOP ?? 25);

/** The Chrome DevTools Protocol over the inspector's WebSocket: one method call at a time. */
async function inspector(port: number) {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((opened, failed) => {
    socket.addEventListener('open', opened);
    socket.addEventListener('error', failed);
  });
  let last = 0;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    const call = message.id === undefined ? undefined : pending.get(message.id);
    if (!call) return;
    pending.delete(message.id!);
    if (message.error) call.reject(new Error(JSON.stringify(message.error)));
    else call.resolve(message.result);
  });
  return {
    call: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = ++last;
        pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'rrs-allocations-'));
const inspectPort = await freePort();
const service = await startService(`--inspect=127.0.0.1:${inspectPort} dist/server.js`, {
  DATABASE_URL: databaseUrl,
  // The bench's token scenarios present its API token.
  CONFIG_FILE: benchConfigFile(dir),
});
try {
  const headers = { 'x-apitoken': BENCH_TOKEN };
  const send = async () => {
    const response = await fetch(`${service.base}${path}`, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  };
  for (let i = 0; i < warmup; i++) await send();
  const session = await inspector(inspectPort);
  await session.call('HeapProfiler.enable');
  await session.call('HeapProfiler.collectGarbage');
  await session.call('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < requests; i++) await send();
  const { profile } = await session.call<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
  session.close();
  if (process.env.ALLOC_PROFILE) writeFileSync(process.env.ALLOC_PROFILE, JSON.stringify(profile));

  // By function, and by the chain of callers that led to it (ALLOC_CALLERS frames, default 3).
  const depth = Number(process.env.ALLOC_CALLERS ?? 3);
  const bytes = new Map<string, { size: number; chains: Map<string, number> }>();
  let total = 0;
  const nameOf = ({ functionName, url, lineNumber, scriptId }: CallFrame) => {
    const where = url
      ? url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/dist\//, 'dist/')
      : `script ${scriptId}`;
    return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  };
  const visit = (node: ProfileNode, callers: string[]) => {
    const name = nameOf(node.callFrame);
    const entry = bytes.get(name) ?? { size: 0, chains: new Map<string, number>() };
    bytes.set(name, entry);
    entry.size += node.selfSize;
    const chain = callers.slice(-depth).reverse().join(' < ');
    if (node.selfSize) entry.chains.set(chain, (entry.chains.get(chain) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child, [...callers, name]);
  };
  visit(profile.head, []);
  const kb = (n: number) => `${(n / requests / 1024).toFixed(1).padStart(8)} KB`;
  console.log(`${path}: ${kb(total).trim()} allocated per request (${requests} requests, sampled)`);
  for (const [name, { size, chains }] of [...bytes].sort((a, b) => b[1].size - a[1].size).slice(0, shown)) {
    console.log(`${kb(size)}  ${name}`);
    if (depth === 0) continue;
    for (const [chain, part] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 2))
      console.log(`${' '.repeat(12)}${kb(part).trim()} from ${chain}`);
  }
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
