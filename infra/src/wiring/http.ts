import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
    ...(options.serveWebApp === false ? { serveWebApp: false } : { webDistDir: settings.webDistDir, socialLinks: settings.socialLinks }),
    ...shellSecurity(settings),
    routers: options.routers,
  };
  const laneShell = createFastLaneShell(shell);
  const server = createServer(withFastLane(createAppShell(shell, laneShell), laneShell, ...options.fastLanes));
  trackConnections(server);
  return server;
}

/**
 * At a stop, requests in flight get this long to finish; then every connection still open is
 * closed, WebSockets and clients that do not read included (docs/architecture.md, "Limits").
 */
export const STOP_GRACE_MS = 2_000;

const connectionsOf = new WeakMap<Server, Set<Socket>>();

/**
 * Every TCP connection of the server, upgraded ones included: Node's closeAllConnections()
 * reaches only those still speaking HTTP, and a WebSocket whose client never answers the close
 * frame would otherwise hold the stop for as long as the library waits for it.
 */
function trackConnections(server: Server): void {
  const open = new Set<Socket>();
  connectionsOf.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
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
 * connections are closed at once, busy ones get `graceMs` to finish their request, then every
 * connection still open (upgraded ones too, for a server made by createShellServer) is destroyed.
 */
export function stopAccepting(server: Server, graceMs = STOP_GRACE_MS): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      for (const socket of connectionsOf.get(server) ?? []) socket.destroy();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      done();
    });
    server.closeIdleConnections();
  });
}

/**
 * A server with Socket.IO attached: stops accepting, closes the sockets (each client is told),
 * then resolves once every connection has ended, within STOP_GRACE_MS.
 */
export async function stopServing(server: Server, sockets: { close(): Promise<void> }): Promise<void> {
  const drained = stopAccepting(server);
  await sockets.close();
  await drained;
}
