import { randomUUID } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import {
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type AppendResult,
  type EventData,
  type Position,
} from '@eventstore/db-client';
import type { EsdbClient } from '../event-store/esdb';

/**
 * Test-only, in-memory stand-in for the `@eventstore/db-client` v6 client, so the adapter's own
 * logic runs in every `npm test` although no EventStoreDB can run here. It models the documented
 * behaviour the adapter relies on, and nothing more:
 * - readAll's `fromPosition` is inclusive (forwards); a backwards read returns what lies before it;
 * - a subscription to $all starts after its position, applies the system-event filter, and sends
 *   `caughtUp` in order once history is streamed (ESDB 23.10+; switch off with `sendCaughtUp`);
 * - reading a missing stream fails with StreamNotFoundError;
 * - a multi-event append answers the transaction's position (its first record), not the last
 *   event's; an idempotent retry answers without a position;
 * - idempotency: the same ids at the same expected revision succeed without writing.
 * It is not evidence about a real server; esdb.contract.test.ts is.
 */

export interface FakeRecord {
  streamId: string;
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
  revision: bigint;
  position: Position;
  created: Date;
}

const CAUGHT_UP = Symbol('caughtUp');

/** Mirrors the client's Subscription transform: events are pushed, `caughtUp` is emitted in order. */
export class FakeSubscription extends Transform {
  unsubscribed = false;
  constructor() {
    super({ objectMode: true, highWaterMark: 4 });
  }
  override _transform(message: unknown, _encoding: BufferEncoding, next: TransformCallback): void {
    if (message === CAUGHT_UP) {
      this.emit('caughtUp');
      next();
      return;
    }
    next(null, message);
  }
  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
  }
}

const cmp = (a: Position, b: Position) => (a.commit === b.commit ? Number(a.prepare - b.prepare) : Number(a.commit - b.commit));

type ReadRevisionArg = 'start' | 'end' | bigint;
type ReadPositionArg = 'start' | 'end' | Position;
interface ReadArgs {
  direction?: 'forwards' | 'backwards';
  maxCount?: number | bigint;
}

export class FakeEsdb {
  readonly log: FakeRecord[] = [];
  private nextPosition = 100n;
  sendCaughtUp = true;
  /** Servers before 22.6 send no position with stream reads. */
  legacyStreamReads = false;
  readonly subscriptions: FakeSubscription[] = [];
  disposed = 0;

  /** Writes a record as the server would (also system events the product never writes). */
  record(streamId: string, type: string, data: unknown = {}, metadata: unknown = {}, id: string = randomUUID()): FakeRecord {
    const revision = BigInt(this.stream(streamId).length);
    const position = { commit: this.nextPosition, prepare: this.nextPosition };
    this.nextPosition += 37n;
    const rec = { streamId, id, type, data: structuredClone(data), metadata: structuredClone(metadata), revision, position, created: new Date() };
    this.log.push(rec);
    for (const sub of this.subscriptions) if (!sub.unsubscribed && !type.startsWith('$')) sub.write(resolved(rec));
    return rec;
  }

  private stream(streamId: string): FakeRecord[] {
    return this.log.filter((r) => r.streamId === streamId);
  }

  readonly appendToStream = async (
    streamName: string,
    events: EventData | EventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ): Promise<AppendResult> => {
    await Promise.resolve();
    const list = Array.isArray(events) ? events : [events];
    const records = this.stream(streamName);
    const current = records.length - 1;
    const expected = options.expectedRevision ?? 'any';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === -1) ||
      (expected === 'stream_exists' && current >= 0) ||
      (typeof expected === 'bigint' && BigInt(current) === expected);
    if (!ok || expected === 'any') {
      const idempotent = this.idempotentMatch(records, list, expected);
      if (idempotent !== undefined) return { success: true, nextExpectedRevision: idempotent, position: undefined };
    }
    if (!ok) {
      throw new WrongExpectedVersionError(undefined, {
        streamName,
        expected,
        current: current === -1 ? 'no_stream' : BigInt(current),
      });
    }
    const first = this.nextPosition;
    let last: FakeRecord | undefined;
    for (const e of list) last = this.record(streamName, e.type, e.data, e.metadata, e.id);
    return { success: true, nextExpectedRevision: last!.revision, position: { commit: first, prepare: first } };
  };

  /** The revision of the last matched event when `list` is already in the stream where `expected` puts it. */
  private idempotentMatch(records: FakeRecord[], list: EventData[], expected: AppendExpectedRevision): bigint | undefined {
    let start: number;
    if (expected === 'no_stream') start = 0;
    else if (typeof expected === 'bigint') start = Number(expected) + 1;
    else start = records.findIndex((r) => r.id === list[0]?.id);
    if (start < 0) return undefined;
    const slice = records.slice(start, start + list.length);
    if (slice.length !== list.length || slice.some((r, i) => r.id !== list[i]!.id)) return undefined;
    return slice.at(-1)!.revision;
  }

  readonly readStream = (streamName: string, options: ReadArgs & { fromRevision?: ReadRevisionArg } = {}) => {
    const records = this.stream(streamName);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    const max = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    const legacy = this.legacyStreamReads;
    return Readable.from(
      (async function* () {
        if (records.length === 0) throw new StreamNotFoundError(undefined, streamName);
        let list = backwards ? [...records].reverse() : records;
        if (typeof from === 'bigint') list = list.filter((r) => (backwards ? r.revision <= from : r.revision >= from));
        for (const r of list.slice(0, max)) {
          yield legacy ? { event: { ...resolved(r).event, position: undefined } } : resolved(r);
        }
      })(),
    );
  };

  readonly readAll = (options: ReadArgs & { fromPosition?: ReadPositionArg } = {}) => {
    const backwards = options.direction === 'backwards';
    const from = options.fromPosition ?? (backwards ? 'end' : 'start');
    let list = backwards ? [...this.log].reverse() : [...this.log];
    if (typeof from === 'object') {
      list = list.filter((r) => (backwards ? cmp(r.position, from) < 0 : cmp(r.position, from) >= 0));
    }
    return Readable.from(list.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(resolved));
  };

  readonly subscribeToAll = (options: { fromPosition?: ReadPositionArg } = {}) => {
    const sub = new FakeSubscription();
    const from = options.fromPosition ?? 'start';
    for (const r of this.log) {
      if (r.type.startsWith('$')) continue;
      if (typeof from === 'object' && cmp(r.position, from) <= 0) continue;
      sub.write(resolved(r));
    }
    if (this.sendCaughtUp) sub.write(CAUGHT_UP);
    this.subscriptions.push(sub);
    return sub;
  };

  readonly dispose = async (): Promise<void> => {
    this.disposed++;
  };

  asClient(): EsdbClient {
    return this as unknown as EsdbClient;
  }
}

function resolved(r: FakeRecord) {
  return {
    event: {
      streamId: r.streamId,
      id: r.id,
      isJson: true,
      revision: r.revision,
      type: r.type,
      created: r.created,
      data: structuredClone(r.data),
      metadata: structuredClone(r.metadata),
      position: r.position,
    },
    commitPosition: r.position.commit,
  };
}
