import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { LIMITS, type ChatHistory, type CountriesView, type GlobalPostView, type MainDataView, type Page, type RankingEntry, type RegistryRow } from '@pass/events';
import { CHAT_HISTORY_LIMIT, toCountriesView, toMainDataView } from '@pass/projector';
import type { QueryApiDeps } from '../deps';
import { authOf } from '../http/auth';
import { reader } from '../http/handler';
import { pageQuery, parseOr400 } from '../http/validate';
import { searchUsers } from './search';
import { versionedBody } from './versioned-body';
import { toRankingEntry, toRegistryRow } from './views';

const chatQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_HISTORY_LIMIT).default(50) });

/** A body already serialised, with the headers res.json would give it. */
function sendJson(res: Response, body: string): void {
  res.set('Content-Type', 'application/json; charset=utf-8');
  res.send(body);
}

/** The public reads of api.ts, served from the active read models. */
export function readRoutes(deps: QueryApiDeps): Router {
  const router = Router();
  const log = deps.logger.child({ component: 'query-api' });
  const ks = () => deps.readModels.active();

  const mainData = versionedBody(async (keyspace): Promise<MainDataView> => toMainDataView(await keyspace.main()));
  router.get('/api/main-data', reader(log, async (_req, res) => {
    sendJson(res, await mainData(await ks()));
  }));

  const countries = versionedBody(async (keyspace): Promise<CountriesView> => toCountriesView(await keyspace.countries(LIMITS.topCountries)));
  router.get('/api/countries', reader(log, async (_req, res) => {
    sendJson(res, await countries(await ks()));
  }));

  router.get('/api/ranking', reader(log, async (req, res) => {
    const query = parseOr400(pageQuery, req.query, res);
    if (!query) return;
    const found = await searchUsers(await ks(), { ...query, allowEmail: false, membersOnly: true });
    const body: Page<RankingEntry> = {
      total: found.total,
      page: query.page,
      pageSize: query.pageSize,
      items: found.rows.map((r) => toRankingEntry(r.rank, r.row)),
    };
    res.json(body);
  }));

  router.get('/api/registry', reader(log, async (req, res) => {
    const query = parseOr400(pageQuery, req.query, res);
    if (!query) return;
    const auth = await authOf(req, deps.sessions);
    const viewer = { userId: auth.user?.id ?? null, admin: auth.admin !== null };
    const keyspace = await ks();
    // Members find their own row by e-mail; admins find anyone's.
    const mayLookUpEmail = async (email: string) =>
      viewer.admin || (viewer.userId !== null && (await keyspace.userById(viewer.userId))?.email.trim().toLowerCase() === email);
    const found = await searchUsers(keyspace, { ...query, allowEmail: true, membersOnly: false, mayLookUpEmail });
    const body: Page<RegistryRow> = {
      total: found.total,
      page: query.page,
      pageSize: query.pageSize,
      items: found.rows.map((r) => toRegistryRow(r.row, viewer)),
    };
    res.json(body);
  }));

  router.get('/api/chat-messages', reader(log, async (req, res) => {
    const query = parseOr400(chatQuery, req.query, res);
    if (!query) return;
    const body: ChatHistory = await (await ks()).chat(query.limit);
    res.json(body);
  }));

  router.get('/api/global-post', reader(log, async (_req, res) => {
    const body: GlobalPostView | null = (await (await ks()).posts())[0] ?? null;
    res.json(body);
  }));

  router.get('/api/me', reader(log, async (req, res) => {
    const { user } = await authOf(req, deps.sessions);
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
