/**
 * Search tokens shared by the projections (which index rows) and the queries (which look them
 * up), so both normalise text the same way. Matching is by whole token, case- and
 * accent-insensitive: "maria" finds "María López"; "united states" needs both words. E-mails are
 * looked up whole (the kernel's normalizeEmail), and only by the registry, so the public
 * ranking never matches on them.
 */
import { normalizeEmail } from '@pass/events';

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

/**
 * Small memo tables for the projections' hot path: a row is re-indexed whenever its score
 * changes, and tokenising (Unicode folding, split) or parsing a date each time was a large part of
 * a batch. Bounded: emptied when full, so memory stays flat whatever the number of users.
 */
const MEMO_LIMIT = 10_000;
function memo<V>(table: Map<string, V>, key: string, compute: (key: string) => V): V {
  let value = table.get(key);
  if (value === undefined) {
    if (table.size >= MEMO_LIMIT) table.clear();
    table.set(key, (value = compute(key)));
  }
  return value;
}

/** A timestamp as toISOString writes it, with a time of day that cannot roll over to the next day. */
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const displayDays = new Map<string, string>();

/** dd/mm/yyyy in UTC, as the registry shows dates. */
export function displayDate(iso: string): string {
  // Same day, same answer: canonical timestamps are looked up by their date part.
  if (CANONICAL_ISO.test(iso)) return memo(displayDays, iso.slice(0, 10), (day) => parseDisplayDate(`${day}T00:00:00.000Z`));
  return parseDisplayDate(iso);
}

function parseDisplayDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
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
  if (allowEmail && text.includes('@')) return { sets: [], email: normalizeEmail(text) };
  const sets = new Set<`ix:${string}`>();
  for (const part of text.split(/\s+/)) {
    if (/^\d{2}\/\d{2}\/\d{4}$/.test(part)) sets.add(`ix:${part}`);
    else for (const w of wordTokens(part)) sets.add(`ix:${w}`);
  }
  return { sets: [...sets].slice(0, MAX_QUERY_TOKENS) };
}

/**
 * A row with more words than this gets no pair sets (a row's pairs grow with the square of its
 * words); it goes to UNPAIRED_SET instead. A 20-character name plus any country of the post form
 * stays well under it.
 */
export const MAX_PAIRED_WORDS = 16;
/** Rows with too many words to pair. Searches check it before trusting a pair set; normally empty. */
export const UNPAIRED_SET = 'ix:+';

/**
 * The pair set of two words: the rows holding both. A multi-word search reads it instead of
 * intersecting two large word sets (README, "Multi-word search"). '+' never occurs in a token, so
 * pair names cannot collide with word or date sets.
 */
export function pairSet(a: string, b: string): `ix:${string}` {
  return a < b ? `ix:${a}+${b}` : `ix:${b}+${a}`;
}

const isDateToken = (token: string) => token.includes('/');

/**
 * How a page of rows matching every set of `sets` (from parseQuery) is read with the pair index.
 * `sets` come back sorted and deduplicated; `pairs[k]` is the pair set of the words
 * `pairWords[k]` (indexes into `sets`), for every two words of the query (dates are not paired:
 * a date set holds one day's registrations, already small).
 */
export interface SearchPlan {
  sets: Array<`ix:${string}`>;
  pairs: Array<`ix:${string}`>;
  pairWords: Array<[number, number]>;
}

export function searchPlan(query: ReadonlyArray<`ix:${string}`>): SearchPlan {
  const sets = [...new Set(query)].sort();
  const pairs: SearchPlan['pairs'] = [];
  const pairWords: SearchPlan['pairWords'] = [];
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      const [a, b] = [sets[i]!.slice(3), sets[j]!.slice(3)];
      if (isDateToken(a) || isDateToken(b)) continue;
      pairs.push(pairSet(a, b));
      pairWords.push([i, j]);
    }
  }
  return { sets, pairs, pairWords };
}

/**
 * The index sets one user belongs to: one per name or country word, one for the registration
 * date, and one per pair of words (or UNPAIRED_SET for a row with too many words).
 */
export function rowIndexSets(row: { fullname: string; country: string; createdAt: string }): Set<string> {
  return new Set(rowIndexSetList(row));
}

/** rowIndexSets as a list (no duplicates: words are distinct, so are their pairs). */
export function rowIndexSetList(row: { fullname: string; country: string; createdAt: string }): string[] {
  const text = memo(textSetsMemo, `${row.fullname}\n${row.country}`, () => textSets(row.fullname, row.country));
  const day = displayDate(row.createdAt);
  const sets = day ? [...text.words, memo(dateSetMemo, day, (d) => `ix:${d}`)] : [...text.words];
  for (const set of text.pairs) sets.push(set);
  return sets;
}

const textSetsMemo = new Map<string, { words: string[]; pairs: string[] }>();
const dateSetMemo = new Map<string, string>();

/** The word sets and the pair sets (or UNPAIRED_SET) of a card's name and country. */
function textSets(fullname: string, country: string): { words: string[]; pairs: string[] } {
  const words = [...new Set([...wordTokens(fullname), ...wordTokens(country)])];
  const pairs: string[] = [];
  if (words.length > MAX_PAIRED_WORDS) pairs.push(UNPAIRED_SET);
  else for (let i = 0; i < words.length; i++) for (let j = i + 1; j < words.length; j++) pairs.push(pairSet(words[i]!, words[j]!));
  return { words: words.map((w) => `ix:${w}`), pairs };
}

/** Fixed-width base-36 ordinal: lexical order of keys is registration order. */
export function rankKey(seq: number): string {
  return seq.toString(36).padStart(8, '0');
}
