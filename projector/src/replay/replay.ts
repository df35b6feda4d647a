import { comparePositions, ERASED_VALUE, ERASURE_EVENT, positionToString, streams, UPCAST_METADATA_KEYS, type EventStore, type GlobalPosition, type RecordedEvent } from '@pass/events';
import { projectInto, toPositioned } from '../projections/apply';
import type { Keyspace } from '../read-models/port';
import { isBeyond, progressAt, type ReplayTarget } from './moment';

/** Events read and projected at a time. */
const PAGE = 5_000;

/** Where a finished replay stopped. */
export interface ReplayRun {
  events: number;
  /** Position of the last event replayed. */
  position: string | null;
  /** The time asked for, or the recorded time of the last event replayed. */
  at: string | null;
}

export interface ReplayIntoOptions {
  eventStore: EventStore;
  /** A fresh, empty keyspace of the replay's own. */
  keyspace: Keyspace;
  target: ReplayTarget;
  onProgress?: (events: number, progress: number) => void | Promise<void>;
  /** Asked between pages: false stops the replay (deleted meanwhile) with ReplayCancelled. */
  wanted?: () => Promise<boolean>;
}

export class ReplayCancelled extends Error {
  constructor() {
    super('Replay deleted while it ran');
    this.name = 'ReplayCancelled';
  }
}

/**
 * Projects every event up to the moment into `keyspace` with the projections the live read
 * models use (projectInto), page by page, then takes out the members erased since
 * (eraseMembersErasedSince). The keyspace then answers what the public reads answered then.
 */
export async function replayInto(options: ReplayIntoOptions): Promise<ReplayRun> {
  const { eventStore, keyspace, target } = options;
  let after: GlobalPosition | undefined;
  let events = 0;
  let last: RecordedEvent | undefined;
  for (;;) {
    if (options.wanted && !(await options.wanted())) throw new ReplayCancelled();
    const page = await eventStore.readAll({ ...(after ? { after } : {}), maxCount: PAGE, metadataKeys: UPCAST_METADATA_KEYS });
    const cut = page.findIndex((event) => isBeyond(target, event));
    const taken = cut === -1 ? page : page.slice(0, cut);
    if (taken.length > 0) {
      await projectInto(keyspace, toPositioned(taken));
      events += taken.length;
      last = taken[taken.length - 1]!;
      await options.onProgress?.(events, progressAt(target, last));
    }
    if (cut !== -1 || page.length < PAGE) break;
    after = page[page.length - 1]!.position;
  }
  await eraseMembersErasedSince(keyspace, eventStore);
  return {
    events,
    position: last ? positionToString(last.position) : null,
    at: target.at ?? last?.recordedAt.toISOString() ?? null,
  };
}

/**
 * Members erased after the moment stay erased in a replay: the key store is today's, so their
 * personal fields read as erased (''), and a row whose e-mail reads so is theirs (every member
 * joins with one). Their own `MemberErased` events are projected last, through the same
 * projections, so they leave every list as they have left today's (docs/product.md §4).
 */
export async function eraseMembersErasedSince(keyspace: Keyspace, eventStore: EventStore): Promise<number> {
  const erased: string[] = [];
  for await (const rows of keyspace.storedRows()) {
    for (const row of rows) if (row.email === ERASED_VALUE) erased.push(row.userId);
  }
  const erasures: RecordedEvent[] = [];
  for (const userId of erased) {
    const stream = await eventStore.readStream(streams.user(userId));
    erasures.push(...stream.filter((event) => event.type === ERASURE_EVENT.type));
  }
  if (erasures.length === 0) return 0;
  erasures.sort((a, b) => comparePositions(a.position, b.position));
  await projectInto(keyspace, toPositioned(erasures));
  return erasures.length;
}
