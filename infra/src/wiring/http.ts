import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens and resolves with the URL clients use (the OS-chosen port when 0 was asked). */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      ready();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shownHost}:${address.port}`;
}

/**
 * Stops accepting connections and resolves once the open ones have ended: idle keep-alive
 * connections are closed at once, busy ones get `graceMs` to finish their request.
 */
export function stopAccepting(server: Server, graceMs = 5_000): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      done();
    });
    server.closeIdleConnections();
  });
}
