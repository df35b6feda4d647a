import { z } from 'zod';
import { CHAT_PANEL_MESSAGES, LIMITS, type ChatHistory, type CountriesView, type MainDataView, type Page, type RankingEntry, type RegistryRow } from '@pass/events';
import { CHAT_HISTORY_LIMIT, toCountriesView, toMainDataView, type Keyspace } from '@pass/projector';
import { searchUsers } from './search';
import { toRankingEntry, toRegistryRow } from './views';

/**
 * The bodies of the public reads, built from one keyspace: the live routes build them from the
 * active read models, an admin replay (admin/replays) from the read models as of a moment.
 */

export const chatQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_HISTORY_LIMIT).default(CHAT_PANEL_MESSAGES) });

export interface PageRequest {
  page: number;
  pageSize: number;
  q?: string | undefined;
}

/** Who asks for the registry: the e-mail stays whole only for its owner and for admins. */
export interface RegistryViewer {
  userId: string | null;
  admin: boolean;
}

/** GET /api/main-data. */
export async function mainDataBody(keyspace: Keyspace): Promise<MainDataView> {
  return toMainDataView(await keyspace.main());
}

/** GET /api/countries. */
export async function countriesBody(keyspace: Keyspace): Promise<CountriesView> {
  return toCountriesView(await keyspace.countries(LIMITS.topCountries));
}

/** GET /api/ranking: members only, searched by word prefixes, never by e-mail. */
export async function rankingBody(keyspace: Keyspace, query: PageRequest): Promise<Page<RankingEntry>> {
  const found = await searchUsers(keyspace, { ...query, allowEmail: false, membersOnly: true });
  return { total: found.total, page: query.page, pageSize: query.pageSize, items: found.rows.map((r) => toRankingEntry(r.rank, r.row)) };
}

/** GET /api/chat-messages. */
export function chatBody(keyspace: Keyspace, limit: number): Promise<ChatHistory> {
  return keyspace.chat(limit);
}

/** GET /api/registry for `viewer`; `mayLookUpEmail` says whether they may find a row by a whole e-mail. */
export async function registryBody(keyspace: Keyspace, query: PageRequest, viewer: RegistryViewer, mayLookUpEmail: (email: string) => Promise<boolean>): Promise<Page<RegistryRow>> {
  const found = await searchUsers(keyspace, { ...query, allowEmail: true, membersOnly: false, mayLookUpEmail });
  return { total: found.total, page: query.page, pageSize: query.pageSize, items: found.rows.map((r) => toRegistryRow(r.row, viewer)) };
}
