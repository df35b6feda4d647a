import { ADMIN_MESSAGES, comparePositions, positionFromString, positionToString, type EventStore, type RecordedEvent, type ReplayRequest } from '@pass/events';

/**
 * Where a replay stops, as a job can carry it (JSON). By position: every event at or before it.
 * By time: every event before the first one recorded after it, so a replay is always a prefix of
 * the store's order (recorded times follow that order but for writers that commit late).
 */
export interface ReplayTarget {
  at?: string;
  position?: string;
  /** The first event of the store, where progress starts. */
  firstPosition: string;
  firstAt: string;
}

/** The target of an admin's request, or the 400 message saying why there is none. */
export async function checkMoment(store: EventStore, request: ReplayRequest): Promise<{ target: ReplayTarget } | { error: string }> {
  const [first] = await store.readAll({ maxCount: 1, metadataKeys: [] });
  if (!first) return { error: ADMIN_MESSAGES.replayNoEvents };
  const start = { firstPosition: positionToString(first.position), firstAt: first.recordedAt.toISOString() };
  if ('at' in request) {
    const at = new Date(request.at);
    if (Number.isNaN(at.getTime())) return { error: ADMIN_MESSAGES.replayBadMoment };
    const now = store.now ? await store.now() : new Date();
    if (at.getTime() > now.getTime()) return { error: ADMIN_MESSAGES.replayFuture };
    if (at.getTime() < first.recordedAt.getTime()) return { error: ADMIN_MESSAGES.replayBeforeFirst };
    return { target: { at: at.toISOString(), ...start } };
  }
  let position;
  try {
    position = positionFromString(request.position);
  } catch {
    return { error: ADMIN_MESSAGES.replayBadMoment };
  }
  if (comparePositions(position, first.position) < 0) return { error: ADMIN_MESSAGES.replayBeforeFirst };
  if (comparePositions(position, await store.headPosition()) > 0) return { error: ADMIN_MESSAGES.replayFuture };
  return { target: { position: request.position, ...start } };
}

/** Whether `event` comes after the moment (the replay stops before it). */
export function isBeyond(target: ReplayTarget, event: RecordedEvent): boolean {
  if (target.position !== undefined) return comparePositions(event.position, positionFromString(target.position)) > 0;
  return event.recordedAt.getTime() > Date.parse(target.at!);
}

/**
 * How far a replay that has reached `event` is, estimated without counting the events up to the
 * moment: by recorded time for a time, by the position's second number (a sequence in the SQL
 * stores, a log offset in EventStoreDB) for a position. Below 1 until the replay is done.
 */
export function progressAt(target: ReplayTarget, event: RecordedEvent): number {
  let fraction: number;
  if (target.position !== undefined) {
    const from = positionFromString(target.firstPosition).prepare;
    const span = positionFromString(target.position).prepare - from;
    fraction = span > 0n ? Number(event.position.prepare - from) / Number(span) : 0;
  } else {
    const from = Date.parse(target.firstAt);
    const span = Date.parse(target.at!) - from;
    fraction = span > 0 ? (event.recordedAt.getTime() - from) / span : 0;
  }
  return Math.min(0.99, Math.max(0, fraction));
}
