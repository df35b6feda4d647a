import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * The client's address as Express computes `req.ip` for the same TRUST_PROXY value (names such
 * as `loopback, uniquelocal`, addresses/CIDRs, a hop count, or `true`), for requests Express does
 * not see: the Socket.IO handshake. Per-address limits then count the same client over HTTP and
 * over the socket, behind the same proxies.
 */
export function clientAddressResolver(trustProxy: string = 'loopback'): (req: IncomingMessage) => string {
  const value = trustProxy.trim();
  let trust: (address: string, hop: number) => boolean;
  if (value === 'true') trust = () => true;
  else if (value === 'false') trust = () => false;
  else if (/^\d+$/.test(value)) {
    const hops = Number(value);
    trust = (_address, hop) => hop < hops;
  } else {
    trust = proxyaddr.compile(value.split(',').map((v) => v.trim()).filter(Boolean));
  }
  return (req) => {
    try {
      return proxyaddr(req, trust).replace(/^::ffff:/, '');
    } catch {
      return (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
    }
  };
}
