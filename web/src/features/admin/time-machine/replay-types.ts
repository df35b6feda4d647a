// The replay routes' own bodies (GET /api/admin/replays/{id} and …/diff/{otherId}), in this one
// place: the server's field names are not in the kernel yet; align them here when they are.

export type ReplayState = 'running' | 'ready' | 'failed';

/** GET /api/admin/replays/{id}: how far the replay of the events up to its moment has got. */
export interface ReplayStatus {
  id: string;
  status: ReplayState;
  /** 0..1 */
  progress: number;
  /** The moment replayed (ISO-8601). */
  at: string;
  /** The event-store position replayed up to. */
  position: string;
  /** Events replayed so far. */
  events: number;
}

/** A figure at the first moment compared and at the second. */
export interface Then<T> {
  then: T;
  now: T;
}

/** A member whose place in the ranking changed most between the two moments. */
export interface RankingMover {
  fullname: string;
  /** null: not in the ranking at that moment. */
  rankThen: number | null;
  rankNow: number | null;
  passesThen: number;
  passesNow: number;
}

/** GET /api/admin/replays/{id}/diff/{otherId}: `then` is {id}, `now` is {otherId}; either may be `now`. */
export interface ReplayDiff {
  /** Members who joined, and who left, between the two moments. */
  joined: number;
  left: number;
  passes: Then<number>;
  points: Then<number>;
  /** USD. */
  funds: Then<number>;
  movers: RankingMover[];
}

/** What the admin asks to replay: a moment, or an event-store position. */
export type ReplayRequest = { at: string } | { position: string };

/** The live state, which either side of a comparison may be. */
export const NOW = 'now';
