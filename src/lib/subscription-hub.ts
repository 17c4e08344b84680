/**
 * The open GraphQL subscriptions of one instance: their limits, when they re-check what they follow,
 * and their end at shutdown.
 *
 * Nothing is published per write: a subscription re-reads what it follows, for its caller, after
 * content changes (src/db/content-changes.ts: this instance's commits at once, other instances'
 * through PostgreSQL NOTIFY or SQLite's data version), and emits only what differs from what it
 * sent last. Changes heard within `debounceMs` wake each subscription once, so a burst of writes
 * costs each subscription one check; a change during a check is followed by one more check, and
 * what that check read is not told: its statements may straddle the commit.
 */
import { Repeater } from 'graphql-yoga';
import { contentChanges } from '../db/content-changes.ts';
import { DomainError } from '../errors.ts';
import type { Logger } from '../logging/logger.ts';

export interface SubscriptionLimits {
  maxPerCaller: number;
  maxTotal: number;
  debounceMs: number;
}

/**
 * What one subscription follows: `first` is sent at once; after each change `read` reads afresh
 * (for the caller as they are now) and `tell` answers what differs from what was sent last, or
 * undefined when nothing does.
 */
export interface Watcher<State, Event> {
  first: Event;
  read: () => Promise<State>;
  tell: (state: State) => Event | undefined;
}

/** A subscription beyond the caller's or the instance's limit: refused when it starts. */
export class TooManySubscriptionsError extends DomainError {
  constructor(limit: number, scope: 'caller' | 'instance') {
    super(
      'RATE_LIMITED',
      scope === 'caller'
        ? `Trop d’abonnements ouverts : au plus ${limit} à la fois`
        : `Trop d’abonnements ouverts sur ce serveur : au plus ${limit}, réessayez plus tard`,
      { http: { status: 429 } },
    );
  }
}

/** One open subscription: woken after changes, until it ends. */
export class Watch {
  private dirty = false;
  private ended = false;
  private wake: ((open: boolean) => void) | undefined;
  private settle: () => void = () => {};
  /** Resolves when the subscription ends, whoever ends it. */
  readonly over = new Promise<void>((resolve) => {
    this.settle = resolve;
  });

  constructor(private readonly release: (watch: Watch) => void) {}

  /** True once something changed since the last call (at once if it already has); false when ending. */
  changed(): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    if (this.dirty) {
      this.dirty = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake(true);
    else this.dirty = true;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.release(this);
    this.settle();
    const wake = this.wake;
    this.wake = undefined;
    wake?.(false);
  }
}

export class SubscriptionHub {
  private readonly watches = new Set<Watch>();
  private readonly perCaller = new Map<string, number>();
  private stopHearing: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly limits: SubscriptionLimits,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.watches.size;
  }

  /** A new subscription for `caller`, or TooManySubscriptionsError (also once the instance is stopping). */
  open(caller: string): Watch {
    const { maxPerCaller, maxTotal } = this.limits;
    if (this.closed || this.watches.size >= maxTotal)
      throw new TooManySubscriptionsError(maxTotal, 'instance');
    const count = this.perCaller.get(caller) ?? 0;
    if (count >= maxPerCaller) throw new TooManySubscriptionsError(maxPerCaller, 'caller');
    this.perCaller.set(caller, count + 1);
    const watch = new Watch((ended) => this.release(ended, caller));
    this.watches.add(watch);
    // Heard only while someone follows: an instance without subscriptions schedules nothing.
    this.stopHearing ??= contentChanges.onChange(() => this.schedule());
    return watch;
  }

  /**
   * The events of one subscription: `first`, then what the watcher tells after each change, until
   * the client leaves or the instance stops. A failed check is logged and the subscription waits
   * for the next change: nothing is sent that a check did not allow.
   */
  stream<S, T>(watch: Watch, { first, read, tell }: Watcher<S, T>): AsyncIterable<T> {
    const log = this.logger;
    const events = new Repeater<T>(async (push, stop) => {
      // The client left (Yoga returns the iterator) or the stream ended: the slot is freed at once.
      stop.then(() => watch.end());
      // Ended by the instance (shutdown): finish even while an event waits for a slow client.
      watch.over.then(() => stop());
      const stopped = stop.then(() => false);
      await push(first);
      while (await Promise.race([watch.changed(), stopped])) {
        try {
          const generation = contentChanges.generation;
          const state = await read();
          // A commit landed while it read (several statements): rows from before and after it
          // may be mixed. That commit woke this subscription again: the next check tells it.
          if (contentChanges.generation !== generation) continue;
          const event = tell(state);
          if (event !== undefined) await push(event);
        } catch (error) {
          log.warn({ err: error }, 'subscription check failed: waiting for the next change');
        }
      }
      stop();
    });
    // A stream returned before its first event never runs the body above: free the slot here too.
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => events.next(),
      return: (value?: unknown) => {
        watch.end();
        return events.return(value as T);
      },
      throw: (error?: unknown) => {
        watch.end();
        return events.throw(error);
      },
    } as AsyncIterableIterator<T>;
  }

  /** Ends every subscription (their streams complete, so shutdown is not held) and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const watch of [...this.watches]) watch.end();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const watch of this.watches) watch.notify();
    }, this.limits.debounceMs);
    this.timer.unref();
  }

  private release(watch: Watch, caller: string): void {
    this.watches.delete(watch);
    const count = (this.perCaller.get(caller) ?? 1) - 1;
    if (count > 0) this.perCaller.set(caller, count);
    else this.perCaller.delete(caller);
    if (this.watches.size === 0) {
      this.stopHearing?.();
      this.stopHearing = undefined;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
