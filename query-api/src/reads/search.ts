import { parseQuery, type Keyspace, type UserPage } from '@pass/projector';

/**
 * One page of users for a search box: by index words, or (registry and admin only) by a whole
 * e-mail. Text with no usable word ("!!!") matches nobody rather than everybody.
 */
export async function searchUsers(
  ks: Keyspace,
  options: {
    q?: string | undefined;
    allowEmail: boolean;
    membersOnly: boolean;
    page: number;
    pageSize: number;
    /**
     * Whether this viewer may look up `email`. Without the check an exact e-mail search would
     * tell anyone whether an address is registered, which the masking is there to prevent.
     */
    mayLookUpEmail?: (email: string) => Promise<boolean>;
  },
): Promise<UserPage> {
  const parsed = parseQuery(options.q, options.allowEmail);
  if (options.q && parsed.sets.length === 0 && parsed.email === undefined) return { total: 0, rows: [] };
  if (parsed.email !== undefined && options.mayLookUpEmail && !(await options.mayLookUpEmail(parsed.email))) return { total: 0, rows: [] };
  return ks.users({
    membersOnly: options.membersOnly,
    sets: parsed.sets,
    ...(parsed.email === undefined ? {} : { email: parsed.email }),
    offset: (options.page - 1) * options.pageSize,
    limit: options.pageSize,
  });
}
