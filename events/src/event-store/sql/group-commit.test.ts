/**
 * The group commit queue on its own, with a fake database: when appends go out, and how a store
 * that cannot be reached is answered. (Its SQL is covered against PostgreSQL in
 * postgres-group-commit.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { newEvent } from '../../test-support/event-store-contract';
import { GroupCommit, type GroupOutcome, type QueuedAppend } from './group-commit';

class Unreachable extends Error {}

/** A fake database: the single path and the batch statement answer what `behaviour` says. */
function fakeStore(behaviour: { alone?: (append: QueuedAppend, call: number) => Promise<GroupOutcome>; batch?: (appends: number) => Promise<string> }) {
  const sent: string[] = [];
  let aloneCalls = 0;
  const queue = new GroupCommit({
    schema: '"es"',
    sendAlone: (append) => {
      sent.push(`alone ${append.streamId}`);
      return behaviour.alone ? behaviour.alone(append, aloneCalls++) : Promise.resolve({ result: '0/1/1' });
    },
    sendBatch: (_text, params) => {
      const streams = params[0]!.slice(1, -1).split(',').length;
      sent.push(`batch of ${streams}`);
      return behaviour.batch ? behaviour.batch(streams) : Promise.resolve(Array.from({ length: streams }, (_, i) => `0/2/${i + 10}`).join(','));
    },
    failsAll: (error) => (error instanceof Unreachable ? error : undefined),
  });
  const append = (streamId: string) => queue.append({ streamId, expected: -2, events: [newEvent()] });
  return { sent, append };
}

const after = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('group commit queue', () => {
  it('with nothing in flight, an append is sent at once, on its own', async () => {
    const store = fakeStore({});
    const acknowledged = store.append('a');
    expect(store.sent).toEqual(['alone a']);
    await expect(acknowledged).resolves.toEqual({ result: '0/1/1' });
  });

  it('appends made while one is in flight go out together when it is answered', async () => {
    const store = fakeStore({});
    const all = Promise.all(['a', 'b', 'c', 'd'].map((s) => store.append(s)));
    await all;
    expect(store.sent).toEqual(['alone a', 'batch of 3']);
  });

  it('when the store hangs and then proves unreachable, the appends queued meanwhile fail with it at once', async () => {
    const store = fakeStore({ alone: () => after(1_100).then(() => Promise.reject(new Unreachable('query read timeout'))) });
    const started = performance.now();
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((s) => store.append(s)));
    // One timeout in all, not one more for the appends that waited behind it.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'fulfilled'))).toEqual(['query read timeout', 'query read timeout', 'query read timeout']);
    expect(store.sent).toEqual(['alone a']);
  });

  it('after a quick failure (a reset connection), the queued appends still try for themselves', async () => {
    const store = fakeStore({ alone: (_append, call) => (call === 0 ? Promise.reject(new Unreachable('connection reset')) : Promise.resolve({ result: '0/1/1' })) });
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((s) => store.append(s)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(store.sent).toEqual(['alone a', 'batch of 2']);
  });
});
