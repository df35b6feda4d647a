import { adViewsSchema, mainDataSchema, streams } from '@pass/events';
import { Router } from 'express';
import { requireAdmin } from '../http/auth';
import { commandContext } from '../http/context';
import type { CommandServices } from '../services';
import { poolDecider } from '../passes-pool/decider';
import { siteDecider } from './decider';

/** The admin dashboard's site commands (docs/product.md §2 /content/admin/dashboard). */
export function siteRoutes(services: CommandServices): Router {
  const router = Router();

  router.put('/api/main-data', async (req, res) => {
    const admin = requireAdmin(res);
    const form = mainDataSchema.parse(req.body ?? {});
    const ctx = commandContext(req, admin, services.clock);
    // Supply first: it is the edit that can be refused (not below passes being claimed).
    await services.handler.handle(poolDecider, streams.passesPool, { type: 'SetPassSupply', data: { available: form.available, setBy: admin.id }, now: ctx.now }, ctx);
    await services.handler.handle(
      siteDecider,
      streams.site,
      { type: 'EditMainData', data: { cpm: form.cpm, donations: form.donations, startDate: form.startDate, editedBy: admin.id }, now: ctx.now },
      ctx,
    );
    res.json(form);
  });

  router.put('/api/reset-ads-views', async (req, res) => {
    const admin = requireAdmin(res);
    const { views } = adViewsSchema.parse(req.body ?? {});
    const ctx = commandContext(req, admin, services.clock);
    await services.handler.handle(siteDecider, streams.site, { type: 'ResetAdViews', data: { views, resetBy: admin.id }, now: ctx.now }, ctx);
    res.json({ views });
  });

  router.delete('/api/delete-chat-messages', async (req, res) => {
    const admin = requireAdmin(res);
    const ctx = commandContext(req, admin, services.clock);
    await services.handler.handle(siteDecider, streams.site, { type: 'ClearChat', data: { clearedBy: admin.id }, now: ctx.now }, ctx);
    res.status(204).end();
  });

  return router;
}
