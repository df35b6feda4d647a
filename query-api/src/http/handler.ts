import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** The 503 message of a read the read models could not answer (both lanes send it). */
export const READS_UNAVAILABLE = 'Read models unavailable, try again shortly';

/**
 * Wraps a read handler: a failure of the read models or the store answers 503 here, so errors
 * of this package never reach (or are mistaken for) other routers' error handlers.
 */
export function reader(log: Logger, fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res) => {
    fn(req, res).catch((error: unknown) => {
      log.error({ err: error, path: req.path }, 'read failed');
      if (!res.headersSent) res.status(503).json({ error: READS_UNAVAILABLE });
      else res.end();
    });
  };
}
