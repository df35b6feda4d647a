/** A stream's decision state and the revision of its last event (-1: the stream does not exist). */
export interface StreamState<S> {
  state: S;
  revision: number;
}

/** What the cache needs of a decider: its name (one stream, one aggregate) and its empty state. */
interface Aggregate<S> {
  readonly name: string;
  initialState(): S;
}

/**
 * The state of recently used streams, least recently used dropped first (Map order is the LRU
 * order). A command decides on it without reading: the append's expected revision proves it
 * current, and a conflict means reading only the newer events.
 */
export class StateCache {
  private readonly entries = new Map<string, { decider: string; state: unknown; revision: number }>();

  constructor(private readonly capacity: number) {}

  /** The cached state, or the aggregate's initial state at revision -1. */
  get<S>(decider: Aggregate<S>, streamId: string): StreamState<S> {
    const hit = this.entries.get(streamId);
    if (hit && hit.decider === decider.name) {
      this.entries.delete(streamId);
      this.entries.set(streamId, hit);
      return { state: hit.state as S, revision: hit.revision };
    }
    return { state: decider.initialState(), revision: -1 };
  }

  /** The cached state without touching the LRU order; it may be behind the store. */
  peek<S>(decider: Aggregate<S>, streamId: string): S | undefined {
    const hit = this.entries.get(streamId);
    return hit && hit.decider === decider.name ? (hit.state as S) : undefined;
  }

  /** Keeps `value` unless the cache holds a newer revision; true when kept. */
  remember<S>(decider: Aggregate<S>, streamId: string, value: StreamState<S>): boolean {
    if (value.revision < 0) return false;
    const existing = this.entries.get(streamId);
    if (existing && existing.decider === decider.name && existing.revision > value.revision) return false;
    this.entries.delete(streamId);
    this.entries.set(streamId, { decider: decider.name, state: value.state, revision: value.revision });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return true;
  }

  clear(): void {
    this.entries.clear();
  }
}
