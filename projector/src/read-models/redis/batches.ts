import { assertNever, type GlobalPostView, type ProgressDay } from '@pass/events';
import type { RedisConnection } from '../redis-admin';
import { encodeSearchText } from '../search-text';
import { CHAT_HISTORY_LIMIT, emptyMain, type BatchSnapshot, type ReadModelWrite, type UserRow, type WriteBatch } from '../types';
import { changesChannel, INDEX_DEFERRED, INDEX_MARKER, keyspacePrefix, parseJson, PROGRESS_MARKER, TEXT_LOG_ENTRIES, TEXT_MARKER } from './keys';
import { FencedWriteError, type Fencing } from './fencing';
import { loadLua, runLua } from './lua';

// The projector's side of a keyspace: what a batch starts from, and the script that stores it.

/**
 * What a live batch starts from, in one command (snapshot.lua): the checkpoint, the figures, the
 * posts, the last progress day and the rows of the batch's members (their rank keys looked up in `uid`, then their rows),
 * instead of a MULTI and a second HMGET for the rows. Rows come back in the order of ARGV, false
 * when absent. Keys: checkpoint, main, posts, uid, rows, progress:last, progress. Members are looked up a thousand at a
 * time (Lua's `unpack` has a stack limit; a live batch has at most a read page of events).
 */
const SNAPSHOT = loadLua(new URL('./snapshot.lua', import.meta.url));

/**
 * Applies a batch in one script (apply.lua, which lists its KEYS and ARGV): checks the checkpoint,
 * runs every write and stores the new checkpoint, atomically, so a crash leaves all or none. Op
 * codes are checked before the first write: Redis does not roll back a script that fails halfway.
 * It then announces the keyspace's id on the store's changes channel, so a reader that keeps what
 * it built from the read models knows when to build again (change-watch.ts).
 */
const APPLY = loadLua(new URL('./apply.lua', import.meta.url), { INDEX_MARKER, INDEX_DEFERRED, PROGRESS_MARKER, TEXT_MARKER, TEXT_LOG_ENTRIES: String(TEXT_LOG_ENTRIES) });

/**
 * Encodes writes as the apply script's list of op codes and operands, sent as one JSON array, and
 * the JSON values they store, sent beside it (`values`; an op names its value by its 1-based
 * number). Every operand is made well-formed first: a lone UTF-16 surrogate reaches Redis as
 * U+FFFD, as it would as a separate argument, instead of a JSON escape the script cannot decode.
 * The values need nothing: JSON.stringify writes a lone surrogate as an escape.
 */
export function encodeWrites(writes: ReadModelWrite[]): { ops: string; values: string[] } {
  const args: string[] = [];
  const values: string[] = [];
  const value = (json: string) => String(values.push(json));
  for (const write of writes) {
    switch (write.op) {
      case 'main':
        args.push('S', 'main', value(JSON.stringify(write.main)));
        break;
      case 'user':
        args.push('U', write.row.key, write.row.userId, value(JSON.stringify(write.row)));
        break;
      case 'zadd':
        args.push('Z', write.set, String(write.score), write.member);
        break;
      case 'zaddMany':
        args.push('M', write.set, String(write.entries.length));
        for (const [member, score] of write.entries) args.push(String(score), member);
        break;
      case 'indexState':
        args.push('I', write.state);
        break;
      case 'zrem':
        args.push('R', write.set, write.member);
        break;
      case 'email':
        args.push('E', write.email, write.member);
        break;
      case 'country':
        args.push('C', String(-write.delta), write.country);
        break;
      case 'chatPush':
        args.push('L', value(JSON.stringify(write.message)), String(CHAT_HISTORY_LIMIT));
        break;
      case 'chatClear':
        args.push('D', 'chat');
        break;
      case 'posts':
        args.push('S', 'posts', value(JSON.stringify(write.posts)));
        break;
      case 'userRemove':
        args.push('Y', write.key, write.userId, write.email);
        break;
      case 'chatDropUser':
        args.push('X', write.userId);
        break;
      case 'progressDay':
        args.push('P', write.day.date, value(JSON.stringify(write.day)));
        break;
      case 'searchText':
        args.push('T', write.key, value(write.text ? encodeSearchText(write.text) : ''));
        break;
      default:
        assertNever(write);
    }
  }
  for (let i = 0; i < args.length; i++) args[i] = args[i]!.toWellFormed();
  return { ops: JSON.stringify(args), values };
}

/**
 * Stores a batch in keyspace `id` of `root` if its checkpoint is still the one the batch expects
 * and, for a fenced writer, if no newer leader has written there (FencedWriteError).
 */
export async function applyBatch(redis: RedisConnection, root: string, id: string, batch: WriteBatch, fencing?: Fencing): Promise<'applied' | 'stale'> {
  const prefix = keyspacePrefix(root, id);
  const epoch = fencing ? String(fencing.token()) : '';
  const { ops, values } = encodeWrites(batch.writes);
  const args = [`${prefix}checkpoint`, batch.expectedCheckpoint ?? '', batch.checkpoint, prefix, changesChannel(root), id, epoch, ops];
  for (const json of values) args.push(json);
  const outcome = await runLua(redis, APPLY, 1, args);
  if (outcome === -1) throw new FencedWriteError(id, epoch);
  return outcome === 1 ? 'applied' : 'stale';
}

/** The checkpoint, figures, posts and the rows of `userIds` of the keyspace under `prefix`. */
export async function readSnapshot(redis: RedisConnection, prefix: string, userIds: Iterable<string>): Promise<BatchSnapshot> {
  const ids = [...new Set(userIds)];
  const keys = ['checkpoint', 'main', 'posts', 'uid', 'rows', 'progress:last', 'progress'].map((name) => `${prefix}${name}`);
  const [checkpoint, main, posts, rows, lastDay] = (await runLua(redis, SNAPSHOT, keys.length, [...keys, ...ids])) as [
    string | null,
    string | null,
    string | null,
    Array<string | null>,
    string | null,
  ];
  const users = new Map<string, UserRow>();
  rows.forEach((json, i) => {
    if (json) users.set(ids[i]!, JSON.parse(json) as UserRow);
  });
  return { checkpoint, main: parseJson(main, emptyMain()), users, posts: parseJson(posts, [] as GlobalPostView[]), progressDay: parseJson(lastDay, null as ProgressDay | null) };
}
