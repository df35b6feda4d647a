import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { CHAT_PANEL_MESSAGES, LIMITS, normalizeEmail, sendFastLaneAnswer, type ChatHistory, type CountriesView, type FastLaneRoute, type GlobalPostView, type MainDataView, type Page, type RankingEntry, type RegistryRow } from '@pass/events';
import { CHAT_HISTORY_LIMIT, progressBodyBuilder, toCountriesView, toMainDataView } from '@pass/projector';
import type { QueryApiDeps } from '../deps';
import { authOf } from '../http/auth';
import { reader } from '../http/handler';
import { pageQuery, parseOr400, validated } from '../http/validate';
import { searchUsers } from './search';
import { versionedBody, versionedPrepared } from './versioned-body';
import { toRankingEntry, toRegistryRow } from './views';

const chatQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_HISTORY_LIMIT).default(CHAT_PANEL_MESSAGES) });

/**
 * The public reads that need no session (home figures, country top 5, progress toward the goal,
 * ranking and its search, chat history, the global post): the Express router below and the fast lane in front of it
 * (infra/src/http/fast-lane.ts) answer them with these same functions.
 */
export function publicFastLaneRoutes(deps: QueryApiDeps): FastLaneRoute<'GET'>[] {
  const ks = () => deps.readModels.active();
  const mainData = versionedBody(async (keyspace): Promise<MainDataView> => toMainDataView(await keyspace.main()), deps.checkpointOf);
  const countries = versionedBody(async (keyspace): Promise<CountriesView> => toCountriesView(await keyspace.countries(LIMITS.topCountries)), deps.checkpointOf);
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
        const { page, pageSize } = query.data;
        const found = await searchUsers(await ks(), { ...query.data, allowEmail: false, membersOnly: true });
        const body: Page<RankingEntry> = { total: found.total, page, pageSize, items: found.rows.map((r) => toRankingEntry(r.rank, r.row)) };
        return { status: 200, body };
      },
    },
    {
      method: 'GET',
      path: '/api/chat-messages',
      answer: async (input) => {
        const query = validated(chatQuery, input);
        if ('invalid' in query) return query.invalid;
        const body: ChatHistory = await (await ks()).chat(query.data.limit);
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
    const found = await searchUsers(keyspace, { ...query, allowEmail: true, membersOnly: false, mayLookUpEmail });
    const body: Page<RegistryRow> = {
      total: found.total,
      page: query.page,
      pageSize: query.pageSize,
      items: found.rows.map((r) => toRegistryRow(r.row, viewer)),
    };
    res.json(body);
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
