import { streams } from '@pass/events';
import { Router } from 'express';
import { requireUser } from '../http/auth';
import type { CommandServices } from '../services';
import { myDataExport } from './export';

/** GET /api/my-data: the session's member downloads everything the site holds about them. */
export function myDataRoutes(services: CommandServices): Router {
  const router = Router();
  router.get('/api/my-data', async (req, res) => {
    const principal = requireUser(res);
    const [recorded, sessions] = await Promise.all([services.eventStore.readStream(streams.user(principal.id)), services.sessions.sessionsOf('user', principal.id)]);
    const body = myDataExport(recorded, sessions, principal, services.siteUrl, services.clock());
    req.log?.info({ userId: principal.id, events: recorded.length }, 'member data exported');
    res.set({ 'Content-Disposition': 'attachment; filename="my-data.json"', 'Cache-Control': 'no-store' });
    res.type('application/json').send(JSON.stringify(body, null, 2));
  });
  return router;
}
