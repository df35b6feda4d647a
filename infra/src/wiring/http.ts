import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { FastLane } from '@pass/events';
import type { Settings } from '../config/settings';
import { createAppShell, createFastLaneShell, type AppShellOptions } from '../http/app-shell';
import { withFastLane } from '../http/fast-lane';
import { shellSecurity } from '../http/security-headers';

/**
 * The HTTP server of a process that answers browsers (command-api, query-api, standalone): the
 * app shell over `routers`, configured from the settings they all read (trusted proxies, the
 * built web app, CSP, allowed origins), with the `fastLanes`' hot routes answered before
 * Express (same shell steps, same answers). `serveWebApp: false` for an API-only process.
 */
export function createShellServer(
  settings: Settings,
  logger: Logger,
  options: { routers: RequestHandler[]; fastLanes: FastLane[]; serveWebApp?: boolean },
): Server {
  const shell: AppShellOptions = {
    logger,
    trustProxy: settings.trustProxy,
    ...(options.serveWebApp === false ? { serveWebApp: false } : { webDistDir: settings.webDistDir }),
    ...shellSecurity(settings),
    routers: options.routers,
  };
  const laneShell = createFastLaneShell(shell);
  return createServer(withFastLane(createAppShell(shell, laneShell), laneShell, ...options.fastLanes));
}

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

/**
 * A server with Socket.IO attached: stops accepting, closes the sockets, then resolves once the
 * HTTP connections have ended.
 */
export async function stopServing(server: Server, sockets: { close(): Promise<void> }): Promise<void> {
  const drained = stopAccepting(server);
  await sockets.close();
  await drained;
}
