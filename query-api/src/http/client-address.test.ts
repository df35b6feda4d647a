import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver } from './client-address';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;

describe('the client address of a socket handshake, as Express computes req.ip', () => {
  it('believes X-Forwarded-For only from trusted proxies (default: loopback)', () => {
    const resolve = clientAddressResolver();
    expect(resolve(request('127.0.0.1', '203.0.113.7'))).toBe('203.0.113.7');
    expect(resolve(request('::ffff:127.0.0.1', '198.51.100.1, 203.0.113.7'))).toBe('203.0.113.7');
    // A client on the network cannot pick its own address.
    expect(resolve(request('192.168.1.20', '203.0.113.7'))).toBe('192.168.1.20');
    expect(resolve(request('::ffff:192.168.1.20'))).toBe('192.168.1.20');
  });

  it('follows TRUST_PROXY: networks, hop counts', () => {
    expect(clientAddressResolver('loopback, uniquelocal')(request('172.18.0.5', '203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressResolver('1')(request('172.18.0.5', '198.51.100.1, 203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressResolver('false')(request('127.0.0.1', '203.0.113.7'))).toBe('127.0.0.1');
  });
});
