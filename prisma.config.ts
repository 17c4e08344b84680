/**
 * Prisma CLI configuration. The `DATABASE_URL` scheme picks the provider: its schema file, its
 * migration history and its driver adapter. Prisma 6.19 runs migrate through its WASM engine with
 * `engine: "js"`, so nothing is downloaded.
 */
import { defineConfig } from 'prisma/config';
import { postgresCliAdapter, sqliteCliAdapter } from './prisma/cli-adapters.ts';
import { DEFAULT_DATABASE_URL, prismaPaths, providerOf } from './src/db/database-url.ts';

// Without a resolvable URL the CLI would try to download a query engine.
process.env.DATABASE_URL ||= DEFAULT_DATABASE_URL;
const databaseUrl = process.env.DATABASE_URL;
const provider = providerOf(databaseUrl);

if (provider === 'postgresql') unreferenceLongTimers();

/**
 * PostgreSQL CLI runs linger 10-60 s after their work is done, held by long timers of the WASM
 * engine and of pg's idle pool. This config is loaded only by the CLI process, so letting such
 * timers not keep the process alive is safe here.
 */
function unreferenceLongTimers(): void {
  const setTimeoutOriginal = globalThis.setTimeout;
  const patched = (...args: Parameters<typeof setTimeout>) => {
    const timer = setTimeoutOriginal(...args);
    if ((args[1] ?? 0) >= 1000) timer.unref?.();
    return timer;
  };
  globalThis.setTimeout = Object.assign(patched, setTimeoutOriginal) as typeof setTimeout;
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: prismaPaths[provider].schema,
  migrations: { path: prismaPaths[provider].migrations },
  adapter: async () =>
    provider === 'sqlite' ? sqliteCliAdapter(databaseUrl) : postgresCliAdapter(databaseUrl),
});
