import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { ADMIN_MESSAGES, type ReplayDiffSide, type ReplayRequest } from '@pass/events';
import type { Keyspace, ReplayControl } from '@pass/projector';
import type { Logger } from 'pino';
import type { QueryApiDeps } from '../../deps';
import { requireAdmin } from '../../http/auth';
import { reader } from '../../http/handler';
import { pageQuery, parseOr400 } from '../../http/validate';
import { chatBody, chatQuery, countriesBody, mainDataBody, rankingBody, registryBody } from '../../reads/bodies';
import { replayDiff } from './diff';

const moment = z.union([z.strictObject({ at: z.iso.datetime({ offset: true }) }), z.strictObject({ position: z.string().regex(/^\d{1,20}\/\d{1,20}$/) })]);
const replayId = z.string().regex(/^rp[0-9a-f]{16}$/);
/** The other side of a diff may be the live read models. */
const NOW = 'now';
/** The admin reads a replay as the admin reads the site: whole e-mails, any e-mail looked up. */
const ADMIN_VIEWER = { userId: null, admin: true };

/** A replay id in the path, or null for anything else (then no such replay). */
function idIn(req: Request, name: string): string | null {
  const parsed = replayId.safeParse(req.params[name]);
  return parsed.success ? parsed.data : null;
}

type ReadyReplay = { keyspace: Keyspace; side: ReplayDiffSide };

/** How every replay route finds the admin's replays and a ready replay, answering the refusals itself. */
function replayAccess(deps: QueryApiDeps) {
  /** The admin's replays, or answers (401/403, 503 without replays here) and returns null. */
  const replaysFor = async (req: Request, res: Response): Promise<ReplayControl | null> => {
    if (!(await requireAdmin(req, res, deps.sessions))) return null;
    if (deps.replays) return deps.replays;
    res.status(503).json({ error: ADMIN_MESSAGES.replaysUnavailable });
    return null;
  };
  /** A ready replay's read models and moment, or answers 404 (none), 409 (running or failed). */
  const readyReplay = async (req: Request, res: Response, id: string | null): Promise<ReadyReplay | null> => {
    const replays = await replaysFor(req, res);
    if (!replays) return null;
    const status = id === null ? null : await replays.status(id);
    if (!status) {
      res.status(404).json({ error: ADMIN_MESSAGES.noSuchReplay });
      return null;
    }
    if (status.status !== 'ready') {
      res.status(409).json({ error: status.status === 'running' ? ADMIN_MESSAGES.replayRunning : ADMIN_MESSAGES.replayFailed });
      return null;
    }
    return { keyspace: await replays.readable(status.id), side: { id: status.id, at: status.at, position: status.position } };
  };
  return { replaysFor, readyReplay };
}

const BASE = '/api/admin/replays';

/**
 * The site as of a moment (admin): ask for a replay, follow it, read the public bodies as they
 * were then (replayBodyRoutes), compare two moments, delete it. docs/architecture.md, "Replays".
 */
export function replayRoutes(deps: QueryApiDeps): Router {
  const router = Router();
  const log = deps.logger.child({ component: 'query-api' });
  const { replaysFor } = replayAccess(deps);

  router.post(BASE, express.json({ limit: '1kb' }), reader(log, async (req, res) => {
    const replays = await replaysFor(req, res);
    if (!replays) return;
    const asked = moment.safeParse(req.body);
    if (!asked.success) {
      res.status(400).json({ error: ADMIN_MESSAGES.replayBadMoment });
      return;
    }
    const started = await replays.start(asked.data as ReplayRequest);
    if ('error' in started) res.status(started.status).json({ error: started.error });
    else res.status(202).json({ id: started.id });
  }));

  router.get(`${BASE}/:id`, reader(log, async (req, res) => {
    const replays = await replaysFor(req, res);
    if (!replays) return;
    const id = idIn(req, 'id');
    const status = id === null ? null : await replays.status(id);
    if (status) res.json(status);
    else res.status(404).json({ error: ADMIN_MESSAGES.noSuchReplay });
  }));

  router.delete(`${BASE}/:id`, reader(log, async (req, res) => {
    const replays = await replaysFor(req, res);
    if (!replays) return;
    const id = idIn(req, 'id');
    if (id !== null && (await replays.remove(id))) res.status(204).end();
    else res.status(404).json({ error: ADMIN_MESSAGES.noSuchReplay });
  }));

  router.use(replayBodyRoutes(deps, log));
  return router;
}

/**
 * A ready replay's bodies: what GET /api/main-data, /countries, /ranking, /registry (as the
 * admin sees it) and /chat-messages answered at its moment, built by the public reads' own
 * functions; and the diff of two moments (either may be `now`, the live read models).
 */
function replayBodyRoutes(deps: QueryApiDeps, log: Logger): Router {
  const router = Router();
  const { replaysFor, readyReplay } = replayAccess(deps);

  router.get(`${BASE}/:id/main-data`, reader(log, async (req, res) => {
    const replay = await readyReplay(req, res, idIn(req, 'id'));
    if (replay) res.json(await mainDataBody(replay.keyspace));
  }));

  router.get(`${BASE}/:id/countries`, reader(log, async (req, res) => {
    const replay = await readyReplay(req, res, idIn(req, 'id'));
    if (replay) res.json(await countriesBody(replay.keyspace));
  }));

  router.get(`${BASE}/:id/ranking`, reader(log, async (req, res) => {
    const query = parseOr400(pageQuery, req.query, res);
    const replay = query && (await readyReplay(req, res, idIn(req, 'id')));
    if (replay) res.json(await rankingBody(replay.keyspace, query));
  }));

  router.get(`${BASE}/:id/registry`, reader(log, async (req, res) => {
    const query = parseOr400(pageQuery, req.query, res);
    const replay = query && (await readyReplay(req, res, idIn(req, 'id')));
    if (replay) res.json(await registryBody(replay.keyspace, query, ADMIN_VIEWER, async () => true));
  }));

  router.get(`${BASE}/:id/chat-messages`, reader(log, async (req, res) => {
    const query = parseOr400(chatQuery, req.query, res);
    const replay = query && (await readyReplay(req, res, idIn(req, 'id')));
    if (replay) res.json(await chatBody(replay.keyspace, query.limit));
  }));

  router.get(`${BASE}/:id/diff/:otherId`, reader(log, async (req, res) => {
    const side = async (name: string): Promise<ReadyReplay | null> => {
      if (req.params[name] !== NOW) return readyReplay(req, res, idIn(req, name));
      if (!(await replaysFor(req, res))) return null;
      const keyspace = await deps.readModels.active();
      return { keyspace, side: { id: NOW, at: null, position: await keyspace.checkpoint() } };
    };
    const then = await side('id');
    const now = then && (await side('otherId'));
    if (then && now) res.json(await replayDiff(then, now));
  }));

  return router;
}
