import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@pass/events';
import { appendEvents, recordedDay } from '@pass/projector/test-support';
import { startReadSide, startRecordedReadSide, type ReadSide } from '../test-support/read-side';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type Answer = { ok: boolean; status?: number; error?: string; retryAfterSeconds?: number };
const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Every read and command spends from its socket's budget and its client address's (budgets.ts), here with small numbers. */
describe('socket budgets per socket and per client', () => {
  let side: ReadSide;

  beforeAll(async () => {
    side = await startReadSide({
      socketLimits: {
        readsPerSocket: { max: 5, windowMs: 10_000 },
        readsPerClient: { max: 8, windowMs: 10_000 },
        commandsPerSocket: { max: 3, windowMs: 10_000 },
        commandsPerClient: { max: 100, windowMs: 10_000 },
      },
    });
    await appendEvents(side.store, recordedDay);
    await side.projector.settled();
  });
  afterAll(async () => {
    await side.close();
  });

  const answersTo = async (socket: ClientSocket, reads: number) => {
    let answered = 0;
    socket.on('chatMessages', () => answered++);
    for (let i = 0; i < reads; i++) socket.emit('getChatMessages');
    await wait(500);
    return answered;
  };

  it('answers a socket its budget of reads; the reads past it go unanswered, the socket stays', async () => {
    const socket = await side.socket(undefined, { address: '192.0.2.1' });
    expect(await answersTo(socket, 8)).toBe(5);
    expect(socket.connected).toBe(true);
    socket.disconnect();
  });

  it("shares the client address's budget between its sockets", async () => {
    const a = await side.socket(undefined, { address: '192.0.2.2' });
    const b = await side.socket(undefined, { address: '192.0.2.2' });
    const [onA, onB] = await Promise.all([answersTo(a, 5), answersTo(b, 5)]);
    expect(onA + onB).toBe(8);
    a.disconnect();
    b.disconnect();
  });

  it('answers a command past the budget 429, with the wait and a message the page shows', async () => {
    const socket = await side.socket(undefined, { address: '192.0.2.3' });
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await new Promise<Answer>((done) => socket.emit('decreaseChatCount', done as never)));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([401, 401, 401]);
    expect(answers[3]).toMatchObject({ ok: false, status: 429, error: expect.stringMatching(/^Too many requests from this page\. Please wait \d+ seconds? and try again\.$/) });
    expect(answers[3]!.retryAfterSeconds).toBeGreaterThan(0);
    socket.disconnect();
  });

  it('cuts off a socket that keeps sending far past its budget', async () => {
    const socket = await side.socket(undefined, { address: '192.0.2.4' });
    const gone = new Promise<string>((done) => socket.once('disconnect', (reason) => done(reason)));
    for (let i = 0; i < 20; i++) socket.emit('getChatMessages');
    expect(await Promise.race([gone, wait(3_000).then(() => 'still connected')])).not.toBe('still connected');
  });
});

describe('socket budgets at their shipped numbers', () => {
  let side: ReadSide;
  beforeAll(async () => {
    side = await startRecordedReadSide();
  });
  afterAll(async () => {
    await side.close();
  });

  it('let a page connect, reconnect and open several tabs without being refused', async () => {
    // What the web asks on every connect: the chat history, the figures and the newest post; ten tabs reconnecting twice.
    let answered = 0;
    for (let round = 0; round < 3; round++) {
      const tabs = await Promise.all(Array.from({ length: 10 }, () => side.socket(undefined, { address: '192.0.2.10' })));
      for (const tab of tabs) {
        tab.on('chatMessages', () => answered++);
        tab.on('updatedMainData', () => answered++);
        tab.on('globalMember', () => answered++);
        tab.emit('getChatMessages');
        tab.emit('getUpdatedMainData');
        tab.emit('getGlobalMember');
      }
      await wait(300);
      for (const tab of tabs) tab.disconnect();
      await wait(100);
    }
    expect(answered).toBe(3 * 10 * 3);
  });
});
