import { hasPostedCard } from '@pass/events';
import { parseQuery, POSTED_SET, rowHasWordsStarting, searchTerms, type Keyspace, type ParsedQuery, type UserPage } from '@pass/projector';

/**
 * Rows read to check a query word longer than the index's prefixes (MAX_PREFIX, in
 * projector/src/read-models/search.ts): the rows sharing its first 10 characters, normally a few
 * hundred at a million members. Beyond this many the rest are not checked, so the results stop there.
 */
export const CHECKED_ROWS_LIMIT = 10_000;

/**
 * One page of users for a search box: by any part of a name, country or date ("esk" finds
 * Desk), or (registry and admin only) by a whole e-mail or by what a masked e-mail shows. Text
 * with no usable word ("!!!") matches nobody rather than everybody. Where the keyspace has no
 * text index yet (a query-api loading its copy), the word-start sets answer: word starts only.
 */
export async function searchUsers(
  ks: Keyspace,
  options: {
    q?: string | undefined;
    allowEmail: boolean;
    membersOnly: boolean;
    /** Only rows whose card is on the site (the admin's posts), and their count. */
    postsOnly?: boolean;
    page: number;
    pageSize: number;
    /**
     * Whether this viewer may look up `email`. Without the check an exact e-mail search would
     * tell anyone whether an address is registered, which the masking is there to prevent.
     */
    mayLookUpEmail?: (email: string) => Promise<boolean>;
  },
): Promise<UserPage> {
  const typed = parseQuery(options.q, options.allowEmail);
  if (options.q && typed.sets.length === 0 && typed.email === undefined) return { total: 0, rows: [] };
  const parsed = options.postsOnly ? postsQuery(typed) : typed;
  if (parsed.email !== undefined && options.mayLookUpEmail && !(await options.mayLookUpEmail(parsed.email))) return { total: 0, rows: [] };
  const terms = searchTerms(options.q);
  const query = {
    membersOnly: options.membersOnly,
    ...(terms.length > 0 && parsed.email === undefined ? { text: { terms, registry: options.allowEmail, posted: options.postsOnly === true } } : {}),
    sets: parsed.sets,
    ...(parsed.registrySets === undefined ? {} : { registrySets: parsed.registrySets }),
    ...(parsed.email === undefined ? {} : { email: parsed.email }),
    offset: (options.page - 1) * options.pageSize,
    limit: options.pageSize,
  };
  if (parsed.email !== undefined && options.postsOnly) return postedOnly(await ks.users(query));
  const page = await ks.users(query);
  if (!parsed.check || parsed.email !== undefined || page.matchedBy === 'text') return page;
  // The word-start sets answered a word longer than their prefixes: the rows sharing its start, checked for the rest.
  const check = parsed.check;
  const found = await ks.users({ ...query, offset: 0, limit: CHECKED_ROWS_LIMIT });
  const rows = found.rows.filter((r) => rowHasWordsStarting(r.row, check, options.allowEmail));
  return { total: rows.length, rows: rows.slice(query.offset, query.offset + query.limit) };
}

/** Posts: the posted set joins the query's, and no rows by a masked e-mail (such rows have no card). */
function postsQuery(typed: ParsedQuery): ParsedQuery {
  const { registrySets: _byMaskedEmail, ...rest } = typed;
  return { ...rest, sets: [...typed.sets, POSTED_SET] };
}

/** An e-mail look-up (one row at most, sets ignored) kept only when that member's card is on the site. */
function postedOnly(page: UserPage): UserPage {
  const rows = page.rows.filter((r) => hasPostedCard(r.row));
  return { total: rows.length === page.rows.length ? page.total : 0, rows };
}
