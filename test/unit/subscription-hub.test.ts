/**
 * The hub's checks: what a subscription reads after a change is told only if no commit landed
 * while it read. Its reads are several statements (a search's count, then its page; the caller's
 * rights, then the content): across a commit they mix rows from before and after it, and once told
 * a state that never existed (CI on PostgreSQL: a search's total 2 from before a removal beside the
 * page from after it).
 */
import { expect, it } from 'vitest';
import { contentChanges } from '../../src/db/content-changes.ts';
import { SubscriptionHub } from '../../src/lib/subscription-hub.ts';
import { createLogger } from '../../src/logging/logger.ts';

const limits = { maxPerCaller: 5, maxTotal: 10, debounceMs: 1 };

/** A commit of this instance, as the database client reports one. */
function commit(): void {
  contentChanges.writing();
  contentChanges.committed();
}

it('tells nothing read across a commit, and tells the next check’s state', async () => {
  const hub = new SubscriptionHub(limits, createLogger('silent'));
  const watch = hub.open('caller');
  const told: string[] = [];
  const states = ['read while a commit landed', 'read after it'];
  const events = hub
    .stream(watch, {
      first: 'first',
      read: async () => {
        const state = states.shift() ?? 'nothing more';
        // The commit lands between this check's statements.
        if (state === 'read while a commit landed') commit();
        return state;
      },
      tell: (state) => {
        told.push(state);
        return state === 'nothing more' ? undefined : state;
      },
    })
    [Symbol.asyncIterator]();
  try {
    expect((await events.next()).value).toBe('first');
    commit();
    expect((await events.next()).value).toBe('read after it');
    expect(told).toEqual(['read after it']);
  } finally {
    await events.return?.();
    await hub.close();
  }
});

it('tells a check’s state when nothing was committed while it read', async () => {
  const hub = new SubscriptionHub(limits, createLogger('silent'));
  const watch = hub.open('caller');
  let reads = 0;
  const events = hub
    .stream(watch, {
      first: 0,
      read: async () => ++reads,
      tell: (state) => state,
    })
    [Symbol.asyncIterator]();
  try {
    expect((await events.next()).value).toBe(0);
    commit();
    expect((await events.next()).value).toBe(1);
    commit();
    expect((await events.next()).value).toBe(2);
  } finally {
    await events.return?.();
    await hub.close();
  }
});
