/**
 * Appends for a database with exactly one writer: the embedded store (PGlite), kept to one process
 * by its lock file, one query at a time. The current revision of a stream is then known in
 * memory, so an append is a plain INSERT checked here, without the per-stream row the shared
 * append functions lock (docs/architecture.md, "Event store"); the unique (stream_id, revision)
 * index guards memory that fell behind. Revisions are a bounded cache (`max(revision)` is one
 * index probe); everything queued meanwhile goes as one INSERT and one commit.
 */
import type { NewEvent } from '../port';
import type { SqlClient } from './client';
import { EXPECT } from './expected-revision';
import { sqlFile } from './sql-file';

/** An append the queue refused: the expectation did not hold (ES409) or the insert failed. */
export type AppendOutcome = { result: string } | { error: unknown } | { refused: number };

interface Pending {
  streamId: string;
  expected: number;
  events: NewEvent[];
  done: (outcome: AppendOutcome) => void;
}

const sql = sqlFile(new URL('./single-writer.sql', import.meta.url));

export interface SingleWriterStatements {
  /** (stream) → last revision as text, or NULL. */
  lastRevision: string;
  /** (streams text[]) → rows (stream_id, r). */
  lastRevisions: string;
  /** (id, stream, revision, type, data, metadata) → 'transaction id/position'. */
  insertOne: string;
  /** Same columns as arrays → 'transaction id/position,position,…' in insertion order. */
  insertMany: string;
}

/** The statements for schema `schema` (as SQL names it: quoted, or a plain lower-case name). */
export function singleWriterStatements(schema: string): SingleWriterStatements {
  return {
    lastRevision: sql('last_revision', { schema }),
    lastRevisions: sql('last_revisions', { schema }),
    insertOne: sql('insert_one', { schema }),
    insertMany: sql('insert_many', { schema }),
  };
}

/** A text[] literal (every element quoted, so any text is safe in it). */
function arrayLiteral(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Events sent in one INSERT at most. */
const MAX_GROUP_EVENTS = 256;
const DEFAULT_CACHED_STREAMS = 100_000;

/** True when an expectation holds for a stream whose last revision is `current` (-1: none). */
export function expectationHolds(expected: number, current: number): boolean {
  if (expected === EXPECT.any) return true;
  if (expected === EXPECT.streamExists) return current >= 0;
  if (expected === EXPECT.noStream) return current === -1;
  return current === expected;
}

/** A unique violation on (stream_id, revision): the in-memory revision was behind the table. */
function isRevisionClash(error: unknown): boolean {
  const failure = error as { code?: unknown; constraint?: unknown; detail?: unknown };
  return failure.code === '23505' && (/stream_id_revision/.test(String(failure.constraint ?? '')) || /\(stream_id, revision\)/.test(String(failure.detail ?? '')));
}

export class SingleWriterAppends {
  private readonly revisions = new Map<string, number>();
  private readonly queue: Pending[] = [];
  private draining = false;
  private readonly statements: SingleWriterStatements;

  constructor(
    private readonly client: Required<Pick<SqlClient, 'query' | 'queryPrepared'>>,
    schema: string,
    private readonly maxCachedStreams = DEFAULT_CACHED_STREAMS,
  ) {
    this.statements = singleWriterStatements(schema);
  }

  /**
   * Queues an append. Answers 'last revision/transaction id/position', `refused` with the
   * stream's current revision when the expectation does not hold (the caller checks whether it
   * is a retry of stored ids), or the database's error (a duplicate event id: 23505).
   */
  append(streamId: string, expected: number, events: NewEvent[]): Promise<AppendOutcome> {
    return new Promise((done) => {
      this.queue.push({ streamId, expected, events, done });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        let count = 0;
        let take = 0;
        while (take < this.queue.length && (take === 0 || count + this.queue[take]!.events.length <= MAX_GROUP_EVENTS)) {
          count += this.queue[take]!.events.length;
          take++;
        }
        await this.send(this.queue.splice(0, take));
      }
    } finally {
      this.draining = false;
    }
  }

  private async send(group: Pending[], retried = false): Promise<void> {
    let current: Map<string, number>;
    try {
      current = await this.currentRevisions(group.map((pending) => pending.streamId));
    } catch (error) {
      for (const pending of group) pending.done({ error });
      return;
    }
    const accepted: { pending: Pending; first: number }[] = [];
    const refused: { pending: Pending; revision: number }[] = [];
    for (const pending of group) {
      const revision = current.get(pending.streamId)!;
      if (!expectationHolds(pending.expected, revision)) {
        refused.push({ pending, revision });
        continue;
      }
      accepted.push({ pending, first: revision + 1 });
      current.set(pending.streamId, revision + pending.events.length);
    }
    if (accepted.length > 0) {
      try {
        const positions = await this.insert(accepted);
        let eventsSoFar = 0;
        for (const { pending, first } of accepted) {
          eventsSoFar += pending.events.length;
          const last = first + pending.events.length - 1;
          this.remember(pending.streamId, last);
          pending.done({ result: `${last}/${positions.tx}/${positions.at[eventsSoFar - 1]}` });
        }
      } catch (error) {
        for (const { pending } of accepted) this.revisions.delete(pending.streamId);
        if (group.length === 1) {
          const [pending] = group as [Pending];
          // Memory behind the table (it should not be): re-read and decide again, once.
          if (isRevisionClash(error) && !retried) await this.send([pending], true);
          else pending.done({ error });
          return;
        }
        // One bad append (a reused event id) must not fail the others, nor refuse an append
        // that expected the state before it: decide and send them one by one.
        for (const pending of group) await this.send([pending]);
        return;
      }
    }
    for (const { pending, revision } of refused) pending.done({ refused: revision });
  }

  /** The last revision of each stream (-1: none), from memory or one query for the rest. */
  private async currentRevisions(streamIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const id of streamIds) {
      if (out.has(id)) continue;
      const known = this.revisions.get(id);
      if (known === undefined) {
        if (!missing.includes(id)) missing.push(id);
      } else out.set(id, known);
    }
    if (missing.length === 1) {
      const [id] = missing as [string];
      const last = (await this.client.queryPrepared('es_last_revision', this.statements.lastRevision, [id]))?.[0];
      out.set(id, last == null ? -1 : Number(last));
    } else if (missing.length > 1) {
      const { rows } = await this.client.query<{ stream_id: string; r: string | null }>(this.statements.lastRevisions, [missing]);
      for (const row of rows) out.set(row.stream_id, row.r == null ? -1 : Number(row.r));
    }
    for (const id of missing) this.remember(id, out.get(id)!);
    return out;
  }

  private remember(streamId: string, revision: number): void {
    this.revisions.delete(streamId); // re-inserted last: the map's order is least recently used first
    this.revisions.set(streamId, revision);
    if (this.revisions.size > this.maxCachedStreams) {
      const drop = Math.ceil(this.maxCachedStreams / 10);
      let dropped = 0;
      for (const key of this.revisions.keys()) {
        if (dropped++ >= drop) break;
        this.revisions.delete(key);
      }
    }
  }

  private async insert(accepted: { pending: Pending; first: number }[]): Promise<{ tx: string; at: string[] }> {
    const rows: string[][] = [[], [], [], [], [], []];
    for (const { pending, first } of accepted) {
      pending.events.forEach((event, i) => {
        rows[0]!.push(event.id);
        rows[1]!.push(pending.streamId);
        rows[2]!.push(String(first + i));
        rows[3]!.push(event.type);
        rows[4]!.push(JSON.stringify(event.data ?? null));
        rows[5]!.push(JSON.stringify(event.metadata ?? {}));
      });
    }
    const [name, text, params] =
      rows[0]!.length === 1
        ? (['es_insert_one', this.statements.insertOne, rows.map((column) => column[0]!)] as const)
        : (['es_insert_many', this.statements.insertMany, rows.map(arrayLiteral)] as const);
    const answer = (await this.client.queryPrepared(name, text, params))?.[0];
    const match = /^(\d+)\/([\d,]+)$/.exec(answer ?? '');
    if (!match) throw new Error(`Insert of ${rows[0]!.length} events returned "${String(answer)}"`);
    return { tx: match[1]!, at: match[2]!.split(',') };
  }
}
