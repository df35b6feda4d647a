/**
 * Search tokens shared by the projections (which index rows) and the queries (which look them
 * up), so both normalise text the same way. Matching is by whole token, case- and
 * accent-insensitive: "maria" finds "María López"; "united states" needs both words. E-mails are
 * looked up whole, and only by the registry, so the public ranking never matches on them.
 */

const MAX_QUERY_TOKENS = 4;

function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Words of a name or country: letters and digits, anything else separates. */
export function wordTokens(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

/** dd/mm/yyyy in UTC, as the registry shows dates. */
export function displayDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

export function emailToken(email: string): string {
  return email.trim().toLowerCase();
}

export interface ParsedQuery {
  /** Sorted-set names of the index, all of which must match. */
  sets: Array<`ix:${string}`>;
  /** A whole e-mail to look up instead. */
  email?: string;
}

/**
 * Turns the text of a search box into index sets. A dd/mm/yyyy date is one token; with
 * `allowEmail`, text containing "@" is looked up as a whole e-mail.
 */
export function parseQuery(q: string | undefined, allowEmail: boolean): ParsedQuery {
  const text = (q ?? '').trim();
  if (text === '') return { sets: [] };
  if (allowEmail && text.includes('@')) return { sets: [], email: emailToken(text) };
  const sets = new Set<`ix:${string}`>();
  for (const part of text.split(/\s+/)) {
    if (/^\d{2}\/\d{2}\/\d{4}$/.test(part)) sets.add(`ix:${part}`);
    else for (const w of wordTokens(part)) sets.add(`ix:${w}`);
  }
  return { sets: [...sets].slice(0, MAX_QUERY_TOKENS) };
}

/** The index sets one user belongs to. */
export function rowIndexSets(row: { fullname: string; country: string; createdAt: string }): Set<string> {
  const sets = new Set<string>();
  for (const w of wordTokens(row.fullname)) sets.add(`ix:${w}`);
  for (const w of wordTokens(row.country)) sets.add(`ix:${w}`);
  const date = displayDate(row.createdAt);
  if (date) sets.add(`ix:${date}`);
  return sets;
}

/** Fixed-width base-36 ordinal: lexical order of keys is registration order. */
export function rankKey(seq: number): string {
  return seq.toString(36).padStart(8, '0');
}
