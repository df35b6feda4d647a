import { comparePositions, ERASURE_EVENT, positionFromString, positionToString, START, streams, UPCAST_METADATA_KEYS, type EventStore, type GlobalPosition, type RecordedEvent } from '@pass/events';
import { projectInto, toPositioned } from '../projections/apply';
import type { Keyspace } from '../read-models/port';
import { isBeyond, progressAt, type ReplayTarget } from './moment';

/** Events read and projected at a time. */
const PAGE = 5_000;

/**
 * Lets timers and I/O run before the next page. In standalone, PGlite and the memory read models
 * answer without any I/O, so a replay would otherwise hold the event loop, and every request the
 * process serves, from its first page to its last.
 */
const turnOver = () => new Promise<void>((done) => setImmediate(done));

/** Where a finished replay stopped. */
export interface ReplayRun {
  events: number;
  /** Position of the last event replayed. */
  position: string | null;
  /** The time asked for, or the recorded time of the last event replayed. */
  at: string | null;
  /** Erasures up to this position are taken out of the replay (eraseMembersErasedAfter). */
  erasuresTo: string;
}

export interface ReplayIntoOptions {
  eventStore: EventStore;
  /** A fresh, empty keyspace of the replay's own. */
  keyspace: Keyspace;
  target: ReplayTarget;
  onProgress?: (events: number, progress: number) => void | Promise<void>;
  /** Asked between pages: false stops the replay (deleted meanwhile) with ReplayCancelled. */
  wanted?: () => Promise<boolean>;
  /**
   * The live read models' active keyspace. With it, members erased since the moment are found as
   * the replay's rows the live read models no longer hold (their erasure read from their own
   * stream), and nothing after the moment is read; without it, every event after it is.
   */
  live?: () => Promise<Keyspace>;
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
 * (eraseMembersErasedAfter). The keyspace then answers what the public reads answered then.
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
    await turnOver();
  }
  const position = last ? positionToString(last.position) : null;
  const { to: erasuresTo } = options.live
    ? await eraseMembersGoneFromLive(keyspace, await options.live(), eventStore)
    : await eraseMembersErasedAfter(keyspace, eventStore, position ?? positionToString(START));
  return { events, position, at: target.at ?? last?.recordedAt.toISOString() ?? null, erasuresTo };
}

/** Replay rows looked up in the live read models at a time. */
const LOOKUP = 1_000;

/**
 * eraseMembersErasedAfter without reading the store after the moment: the live read models drop
 * an erased member's row (and no other event does), so the replay's rows they no longer hold are
 * the members erased since; each one's `MemberErased` is read from their own stream and projected.
 * Returns the live checkpoint the comparison holds for (ReplayErasures reads on from there).
 */
export async function eraseMembersGoneFromLive(keyspace: Keyspace, live: Keyspace, eventStore: EventStore): Promise<{ to: string; erased: number }> {
  const to = (await live.checkpoint()) ?? positionToString(START);
  const gone: string[] = [];
  for await (const rows of keyspace.storedRows()) {
    for (let from = 0; from < rows.length; from += LOOKUP) {
      const ids = rows.slice(from, from + LOOKUP).map((row) => row.userId);
      const held = (await live.snapshot(ids)).users;
      for (const id of ids) if (!held.has(id)) gone.push(id);
    }
    await turnOver();
  }
  const erasures: RecordedEvent[] = [];
  for (const userId of gone) {
    const [erasure] = (await eventStore.readStream(streams.user(userId), { direction: 'backwards' })).filter((event) => event.type === ERASURE_EVENT.type);
    if (erasure) erasures.push(erasure);
  }
  erasures.sort((a, b) => comparePositions(a.position, b.position));
  if (erasures.length > 0) await projectInto(keyspace, toPositioned(erasures));
  return { to, erased: erasures.length };
}

/**
 * Members erased after the moment stay erased in a replay, as they are on today's site
 * (docs/product.md §4): every `MemberErased` after position `after` whose member the replay
 * holds is projected, through the same projections, in the store's order. Returns the position
 * read up to (ReplayErasures calls it again from there, so a member erased once the replay was
 * made leaves it too) and how many members it took out.
 */
export async function eraseMembersErasedAfter(keyspace: Keyspace, eventStore: EventStore, after: string): Promise<{ to: string; erased: number }> {
  let from = positionFromString(after);
  let erased = 0;
  for (;;) {
    const page = await eventStore.readAll({ after: from, maxCount: PAGE, metadataKeys: UPCAST_METADATA_KEYS });
    if (page.length === 0) return { to: positionToString(from), erased };
    const erasures: RecordedEvent[] = [];
    for (const event of page) {
      if (event.type !== ERASURE_EVENT.type) continue;
      const userId = (event.data as Record<string, unknown>)[ERASURE_EVENT.owner];
      if (typeof userId === 'string' && (await keyspace.userById(userId))) erasures.push(event);
    }
    if (erasures.length > 0) await projectInto(keyspace, toPositioned(erasures));
    erased += erasures.length;
    from = page[page.length - 1]!.position;
    if (page.length < PAGE) return { to: positionToString(from), erased };
    await turnOver();
  }
}
