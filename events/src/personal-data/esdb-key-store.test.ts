import { StreamDeletedError, StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { EsdbKeyStore, KEY_EVENT_TYPE, type EsdbKeyClient } from './esdb-key-store';

/**
 * The few client calls the key store makes, with the server's answers as the client documents
 * them: a missing stream reads as StreamNotFoundError, a tombstoned one as StreamDeletedError
 * on read, append and a second tombstone; `no_stream` on an existing stream is a wrong version.
 */
function fakeClient() {
  const streams = new Map<string, { type: string; data: unknown } | 'tombstone'>();
  const client = {
    async appendToStream(name: string, event: { type: string; data: unknown }, options: { expectedRevision: unknown }) {
      const s = streams.get(name);
      if (s === 'tombstone') throw new StreamDeletedError(undefined, name);
      if (s && options.expectedRevision === 'no_stream') throw new WrongExpectedVersionError(undefined, { streamName: name, expected: 'no_stream', current: 0n });
      streams.set(name, { type: event.type, data: event.data });
      return {};
    },
    readStream(name: string) {
      return (async function* () {
        const s = streams.get(name);
        if (s === 'tombstone') throw new StreamDeletedError(undefined, name);
        if (!s) throw new StreamNotFoundError(undefined, name);
        yield { event: s };
      })();
    },
    async tombstoneStream(name: string) {
      if (streams.get(name) === 'tombstone') throw new StreamDeletedError(undefined, name);
      streams.set(name, 'tombstone');
      return {};
    },
    async dispose() {},
  };
  return { client: client as unknown as EsdbKeyClient, streams };
}

describe('KurrentDB key store (client calls as documented; a real server runs only with ESDB_URL)', () => {
  it('one key stream per member, created on the write path only; a destroy tombstones it for good', async () => {
    const { client, streams } = fakeClient();
    const keys = new EsdbKeyStore(client);
    expect((await keys.keysFor(['a'])).size).toBe(0);
    const created = await keys.keysFor(['a', 'b'], { create: true });
    expect(created.size).toBe(2);
    expect(streams.get('member-key-a')).toMatchObject({ type: KEY_EVENT_TYPE });
    expect((await keys.keysFor(['a'], { create: true })).get('a')!.equals(created.get('a')!)).toBe(true);

    await keys.destroy('a');
    await keys.destroy('a');
    expect(streams.get('member-key-a')).toBe('tombstone');
    expect([...(await keys.keysFor(['a', 'b'], { create: true })).keys()]).toEqual(['b']);
  });

  it('two processes creating the same key at once end up with the first one written', async () => {
    const { client } = fakeClient();
    const [one, two] = [new EsdbKeyStore(client), new EsdbKeyStore(client)];
    const [k1, k2] = await Promise.all([one.keysFor(['m'], { create: true }), two.keysFor(['m'], { create: true })]);
    expect(k1.get('m')!.equals(k2.get('m')!)).toBe(true);
  });
});
