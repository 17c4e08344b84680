/**
 * A background job as rounds: one now, then each `intervalMs` after the previous one ended (never
 * two at once), until stopped. The outbox worker and the retention purge run this way.
 */
export interface Rounds {
  /** Schedules no more rounds and waits for the one in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `round` now and then every `intervalMs` after each one ends. `round` is told whether the job
 * is stopping (a long round ends after its current step) and must not reject: it reports its own
 * failures, and the next round comes all the same.
 */
export function repeatRounds(intervalMs: number, round: (stopping: () => boolean) => Promise<void>): Rounds {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stopping = () => stopped;
  const next = async () => {
    await round(stopping);
    if (!stopped) timer = setTimeout(() => (running = next()), intervalMs);
  };
  let running = next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
