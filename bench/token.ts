/** The API token the bench's service accepts (bench/app.ts) and its scenarios present. */
export const BENCH_TOKEN = 'bench-token-0123456789';
