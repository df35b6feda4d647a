import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { normalizeEmail, sendFastLaneAnswer, type ChatHistory, type FastLaneRoute, type GlobalPostView } from '@pass/events';
import { progressBodyBuilder } from '@pass/projector';
import type { QueryApiDeps } from '../deps';
import { authOf } from '../http/auth';
import { reader } from '../http/handler';
import { pageQuery, parseOr400, validated } from '../http/validate';
import { chatBody, chatQuery, countriesBody, mainDataBody, rankingBody, registryBody } from './bodies';
import { versionedBody, versionedPrepared } from './versioned-body';

/**
 * The public reads that need no session (home figures, country top 5, progress toward the goal,
 * ranking and its search, chat history, the global post): the Express router below and the fast lane in front of it
 * (infra/src/http/fast-lane.ts) answer them with these same functions.
 */
export function publicFastLaneRoutes(deps: QueryApiDeps): FastLaneRoute<'GET'>[] {
  const ks = () => deps.readModels.active();
  const mainData = versionedBody(mainDataBody, deps.checkpointOf);
  const countries = versionedBody(countriesBody, deps.checkpointOf);
  // Shared like the figures, and after a batch only its last day is read and serialised again.
  const progress = versionedPrepared(progressBodyBuilder(), deps.checkpointOf);
  return [
    { method: 'GET', path: '/api/main-data', answer: async () => ({ status: 200, prepared: await mainData(await ks()) }) },
    { method: 'GET', path: '/api/countries', answer: async () => ({ status: 200, prepared: await countries(await ks()) }) },
    { method: 'GET', path: '/api/progress', answer: async () => ({ status: 200, prepared: await progress(await ks()) }) },
    {
      method: 'GET',
      path: '/api/ranking',
      answer: async (input) => {
        const query = validated(pageQuery, input);
        if ('invalid' in query) return query.invalid;
        return { status: 200, body: await rankingBody(await ks(), query.data) };
      },
    },
    {
      method: 'GET',
      path: '/api/chat-messages',
      answer: async (input) => {
        const query = validated(chatQuery, input);
        if ('invalid' in query) return query.invalid;
        const body: ChatHistory = await chatBody(await ks(), query.data.limit);
        return { status: 200, body };
      },
    },
    {
      method: 'GET',
      path: '/api/global-post',
      answer: async () => {
        const body: GlobalPostView | null = (await (await ks()).posts())[0] ?? null;
        return { status: 200, body };
      },
    },
  ];
}

/** The reads of api.ts, served from the active read models: `publicRoutes` plus those that need a session. */
export function readRoutes(deps: QueryApiDeps, publicRoutes: readonly FastLaneRoute<'GET'>[] = publicFastLaneRoutes(deps)): Router {
  const router = Router();
  const log = deps.logger.child({ component: 'query-api' });
  const ks = () => deps.readModels.active();

  for (const route of publicRoutes) {
    router.get(route.path, reader(log, async (req, res) => {
      sendFastLaneAnswer(res, await route.answer(req.query));
    }));
  }

  router.get('/api/registry', reader(log, async (req, res) => {
    const query = parseOr400(pageQuery, req.query, res);
    if (!query) return;
    const auth = await authOf(req, res, deps.sessions);
    const viewer = { userId: auth.user?.id ?? null, admin: auth.admin !== null };
    const keyspace = await ks();
    // Members find their own row by e-mail; admins find anyone's.
    const mayLookUpEmail = async (email: string) => {
      if (viewer.admin) return true;
      const own = viewer.userId === null ? null : await keyspace.userById(viewer.userId);
      return own !== null && normalizeEmail(own.email) === email;
    };
    res.json(await registryBody(keyspace, query, viewer, mayLookUpEmail));
  }));

  router.get('/api/me', reader(log, async (req, res) => {
    const { user } = await authOf(req, res, deps.sessions);
    if (!user) {
      res.status(401).json({ error: 'Not signed in' });
      return;
    }
    const result = await deps.gateway.currentUser(user, { correlationId: randomUUID(), ...(req.headers.cookie ? { cookieHeader: req.headers.cookie } : {}) });
    if (result.ok) res.json(result.data);
    else res.status(result.status).json({ error: result.error });
  }));

  return router;
}
