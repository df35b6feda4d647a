import { describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
const fakeSocket = {
  connected: false,
  on: vi.fn((event: string) => void calls.push(`on ${event}`)),
  emit: vi.fn((event: string) => void calls.push(`emit ${event}`)),
  disconnect: vi.fn(() => {
    calls.push('disconnect');
    return fakeSocket;
  }),
  connect: vi.fn(() => {
    calls.push('connect');
    return fakeSocket;
  }),
};
const io = vi.fn(() => {
  calls.push('io');
  return fakeSocket;
});
vi.mock('socket.io-client', () => ({ io }));

const { createLiveSocket } = await import('./socket');

describe('createLiveSocket (Socket.IO loaded after the entry script)', () => {
  it('hands what came before the library loaded to the socket, in order, then goes straight through', async () => {
    const live = createLiveSocket();
    expect(live.connected).toBe(false);
    live.on('connectedUsers', () => {});
    live.onLifecycle('connect', () => {});
    live.emit('getUpdatedMainData');
    live.reconnect();
    expect(calls).toEqual([]);
    await vi.waitFor(() => expect(io).toHaveBeenCalledOnce());
    expect(io).toHaveBeenCalledWith(expect.objectContaining({ withCredentials: true }));
    expect(calls).toEqual(['io', 'on connectedUsers', 'on connect', 'emit getUpdatedMainData', 'disconnect', 'connect']);
    fakeSocket.connected = true;
    expect(live.connected).toBe(true);
    live.emit('getGlobalMember');
    live.disconnect();
    expect(calls.slice(-2)).toEqual(['emit getGlobalMember', 'disconnect']);
  });
});
