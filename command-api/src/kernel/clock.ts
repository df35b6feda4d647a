/** The time source of the command side; tests pass a controllable one. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

export interface StoreSyncedClock {
  clock: Clock;
  /** Store time minus local time, as last measured (ms). */
  offsetMs(): number;
  /** Measures the offset again (also done every `resyncMs`). */
  sync(): Promise<void>;
  stop(): void;
}

/** A store that can tell its own time (EventStore.now). */
export interface TimeSource {
  now?(): Promise<Date>;
}

/**
 * Business time of the command side, following the event store's clock. Every command-api
 * process decides time rules (the free point's 30 s, a claim's 15 s) against the same clock,
 * so instances whose machine clocks drift apart still agree: a member cannot earn twice within
 * 30 s by alternating instances, nor be held back longer. The offset is measured like NTP does
 * (store time minus the midpoint of the round trip, best of three) at start and every minute;
 * reads stay synchronous. A failed measurement keeps the last offset. A store without a clock
 * (EventStoreDB) leaves the local clock as it is.
 */
export async function storeSyncedClock(
  store: TimeSource,
  options: { local?: Clock; resyncMs?: number; onSkew?: (offsetMs: number) => void } = {},
): Promise<StoreSyncedClock> {
  const local = options.local ?? systemClock;
  let offset = 0;
  const measure = async (): Promise<void> => {
    if (!store.now) return;
    let best: { rtt: number; offset: number } | undefined;
    for (let sampleIndex = 0; sampleIndex < 3; sampleIndex++) {
      const before = local().getTime();
      const at = (await store.now()).getTime();
      const after = local().getTime();
      const sample = { rtt: after - before, offset: at - (before + after) / 2 };
      if (!best || sample.rtt < best.rtt) best = sample;
    }
    offset = Math.round(best!.offset);
    if (Math.abs(offset) > 1_000) options.onSkew?.(offset);
  };
  await measure();
  const timer = store.now ? setInterval(() => void measure().catch(() => undefined), options.resyncMs ?? 60_000) : undefined;
  timer?.unref();
  return {
    clock: () => new Date(local().getTime() + offset),
    offsetMs: () => offset,
    sync: measure,
    stop: () => clearInterval(timer),
  };
}
