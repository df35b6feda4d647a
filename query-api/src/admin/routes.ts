import { Router } from 'express';
import { z } from 'zod';
import { ADMIN_MESSAGES, type Page, type AdminPostEntry, type FailedImageJobs, type ProjectionStatus } from '@pass/events';
import { lagOf } from '@pass/projector';
import type { QueryApiDeps } from '../deps';
import { requireAdmin } from '../http/auth';
import { reader } from '../http/handler';
import { pageQuery, parseOr400 } from '../http/validate';
import { searchUsers } from '../reads/search';
import { toAdminPost } from '../reads/views';
import { memberHistory, timelineCsv } from './history';
import { replayRoutes } from './replays/routes';

const historyParams = z.object({ userId: z.string().regex(/^[\w-]{1,100}$/, ADMIN_MESSAGES.noSuchMember) });
const historyQuery = z.object({ format: z.enum(['json', 'csv']).default('json') });

/** Admin views: member audit, post search, projection status, rebuild and replays, failed image jobs. */
export function adminRoutes(deps: QueryApiDeps): Router {
  const router = Router();
  const log = deps.logger.child({ component: 'query-api' });

  router.get('/api/admin/members/:userId/history', reader(log, async (req, res) => {
    if (!(await requireAdmin(req, res, deps.sessions))) return;
    const params = parseOr400(historyParams, req.params, res);
    const query = params && parseOr400(historyQuery, req.query, res);
    if (!params || !query) return;
    const timeline = await memberHistory(deps.eventStore, params.userId);
    if (timeline.length === 0) {
      res.status(404).json({ error: ADMIN_MESSAGES.noSuchMember });
      return;
    }
    if (query.format === 'csv') {
      const safeName = params.userId.replace(/[^A-Za-z0-9_-]/g, '_');
      res.type('text/csv; charset=utf-8').attachment(`history-${safeName}.csv`).send(timelineCsv(timeline));
      return;
    }
    res.json(timeline);
  }));

  router.get('/api/admin/posts', reader(log, async (req, res) => {
    if (!(await requireAdmin(req, res, deps.sessions))) return;
    const query = parseOr400(pageQuery, req.query, res);
    if (!query) return;
    const found = await searchUsers(await deps.readModels.active(), { ...query, allowEmail: true, membersOnly: false, postsOnly: true });
    const body: Page<AdminPostEntry> = {
      total: found.total,
      page: query.page,
      pageSize: query.pageSize,
      items: found.rows.map((r) => toAdminPost(r.rank, r.row)),
    };
    res.json(body);
  }));

  router.get('/api/admin/projections', reader(log, async (req, res) => {
    if (!(await requireAdmin(req, res, deps.sessions))) return;
    if (deps.projections) {
      res.json(await deps.projections.status());
      return;
    }
    const body: ProjectionStatus = {
      ...(await lagOf(await deps.readModels.active(), deps.eventStore)),
      lastError: null,
      rebuild: { state: 'idle', processed: 0, total: 0, startedAt: null },
    };
    res.json(body);
  }));

  router.post('/api/admin/projections/rebuild', reader(log, async (req, res) => {
    if (!(await requireAdmin(req, res, deps.sessions))) return;
    if (!deps.projections) {
      res.status(503).json({ error: ADMIN_MESSAGES.rebuildUnavailable });
      return;
    }
    res.status(202).json(await deps.projections.rebuild());
  }));

  router.get('/api/admin/image-jobs', reader(log, async (req, res) => {
    if (!(await requireAdmin(req, res, deps.sessions))) return;
    // Standalone re-encodes inside the request: nothing is queued, so nothing can be a dead letter.
    const body: FailedImageJobs = deps.imageJobs ? await deps.imageJobs.list(DEAD_LETTERS_SHOWN) : { queue: 'in-process', total: 0, jobs: [] };
    res.json(body);
  }));

  router.use(replayRoutes(deps));

  return router;
}

/** The status panel shows the newest ones; `total` says how many more there are. */
const DEAD_LETTERS_SHOWN = 50;
