/** An append's expected revision as the append functions' bigint argument, and back. */
import type { ExpectedRevision } from '../port';

/** Expected revision codes, as `append_event` takes them (a revision >= 0 is itself). */
export const EXPECT = { noStream: -1, any: -2, streamExists: -3 } as const;

export function encodeExpected(expected: ExpectedRevision): number {
  if (expected === 'any') return EXPECT.any;
  if (expected === 'no_stream') return EXPECT.noStream;
  if (expected === 'stream_exists') return EXPECT.streamExists;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new RangeError(`Expected revision must be 'any', 'no_stream', 'stream_exists' or a revision >= 0, got ${String(expected)}`);
  }
  return expected;
}

export function decodeExpected(expected: number): ExpectedRevision {
  if (expected === EXPECT.any) return 'any';
  if (expected === EXPECT.noStream) return 'no_stream';
  if (expected === EXPECT.streamExists) return 'stream_exists';
  return expected;
}
