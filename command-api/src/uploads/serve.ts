import express, { Router } from 'express';
import { INCOMING_DIR } from './process-image';

/**
 * Card images can be withdrawn (replaced, or deleted by the admin), so no cache may keep one
 * long: five minutes fresh, then revalidated (ETag, Last-Modified), and a withdrawn one answers
 * 404. A URL never changes content, so a revalidation is a cheap 304.
 */
export const UPLOADS_CACHE_CONTROL = 'public, max-age=300, must-revalidate';

/** GET /uploads/*: the stored card images; 404 for anything else (no app fallback). */
export function uploadsRouter(uploadsDir: string): Router {
  const router = Router();
  // Processed but not (yet) on any card: nothing to show.
  router.use(`/${INCOMING_DIR}`, (_req, _res, next) => next(Object.assign(new Error('Not Found'), { status: 404 })));
  router.use(
    express.static(uploadsDir, {
      index: false,
      fallthrough: false,
      dotfiles: 'deny',
      cacheControl: false,
      setHeaders: (res) => res.setHeader('Cache-Control', UPLOADS_CACHE_CONTROL),
    }),
  );
  return router;
}
