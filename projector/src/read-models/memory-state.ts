/** A memory keyspace's state as plain data in parts: what a snapshot file holds (memory-snapshot.ts). */
import type { ChatMessageView, GlobalPostView, ProgressDay } from '@pass/events';
import type { PackedRow } from './packed-row';
import type { Chunk } from './sorted-list';
import type { TextIndexPart } from './text-index';
import type { MainRecord } from './types';

/**
 * Entries per part of a keyspace's state: a snapshot serialises and reads back one part at a
 * time, so a restart never holds the whole file and the whole state at once.
 */
export const PART_ENTRIES = 200_000;

/** The state's one small part, first: figures, chat, posts, and what the other parts need. */
export interface MemoryStateHead {
  part: 'head';
  checkpoint: string | null;
  main: MainRecord;
  /** The members that are not rank keys, by number (MemberIds). */
  memberNames: string[];
  countries: Array<[country: string, users: number]>;
  chat: ChatMessageView[];
  posts: GlobalPostView[];
  /** The progress read model's days, oldest first. */
  progress: ProgressDay[];
  /** The last indexState write (null: none yet). */
  index: 'deferred' | 'complete' | null;
}

/** Everything a memory keyspace holds, as plain data in parts (for `memory-snapshot.ts`), the head first. */
export type MemoryStatePart =
  | MemoryStateHead
  /** User rows by member number (MemberIds), packed. */
  | { part: 'rows'; members: number[]; packed: PackedRow[] }
  /** The member number of each user id, and of each e-mail. */
  | { part: 'userIds'; keys: string[]; members: number[] }
  | { part: 'emails'; keys: string[]; members: number[] }
  | { part: 'sets'; sets: Array<[name: string, chunks: readonly Chunk[]]> }
  /** The search index (text-index.ts): its tokens, then its rows. */
  | TextIndexPart;

/** A map's entries in parts of PART_ENTRIES, as parallel arrays. */
export function mapParts<K, V>(map: Map<K, V>, size: number, part: (keys: K[], values: V[]) => MemoryStatePart, out: MemoryStatePart[]): void {
  let keys: K[] = [];
  let values: V[] = [];
  for (const [key, value] of map) {
    keys.push(key);
    values.push(value);
    if (keys.length === size) {
      out.push(part(keys, values));
      keys = [];
      values = [];
    }
  }
  if (keys.length > 0) out.push(part(keys, values));
}
