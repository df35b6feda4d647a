/**
 * Child process of crash.test.ts: appends to the store named by argv[2] as fast as it can and
 * prints each acknowledged event id on its own line, the moment the append resolves. The test
 * kills it with SIGKILL mid-stream and checks every printed id survived.
 *
 *   node --import tsx events/src/test-support/crash-writer.ts <event store url> [writers]
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { openEventStore } from '../event-store/open';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: crash-writer.ts <event store url> [writers]\n');
  process.exit(2);
}
const writers = Number(process.argv[3] ?? 4);
const store = await openEventStore(url);
// Synchronous write to fd 1: a line is in the pipe before the next append starts.
const ack = (line: string) => writeSync(1, `${line}\n`);
ack('ready');

await Promise.all(
  Array.from({ length: writers }, async (_, w) => {
    const streamId = `crash-${w}`;
    let expected: number | 'no_stream' = 'no_stream';
    for (let i = 0; ; i++) {
      const id = randomUUID();
      const result = await store.append(streamId, [{ id, type: 'CrashTestWritten', data: { writer: w, i }, metadata: {} }], expected);
      expected = result.nextExpectedRevision;
      ack(`${streamId} ${result.nextExpectedRevision} ${id}`);
    }
  }),
);
