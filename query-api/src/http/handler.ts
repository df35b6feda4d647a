import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/**
 * Wraps a read handler: a failure of the read models or the store answers 503 here, so errors
 * of this package never reach (or are mistaken for) other routers' error handlers.
 */
export function reader(log: Logger, fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res) => {
    fn(req, res).catch((error: unknown) => {
      log.error({ err: error, path: req.path }, 'read failed');
      if (!res.headersSent) res.status(503).json({ error: 'Read models unavailable, try again shortly' });
      else res.end();
    });
  };
}
