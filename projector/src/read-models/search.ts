/**
 * Search tokens shared by the projections (which index rows) and the queries (which look them
 * up), so both normalise text the same way. Each query word matches, case- and accent-
 * insensitively, any indexed word that starts with it ("mar lo" finds "María López"); a word
 * longer than MAX_PREFIX is looked up by its start and the rows checked for the rest. The
 * registry also finds a member without a card by what their masked e-mail shows (registry-only
 * `ix:@…` sets, never the hidden part), and a whole e-mail by the e-mail lookup.
 */
import { hasPostedCard, maskEmail, normalizeEmail } from '@pass/events';

const MAX_QUERY_TOKENS = 4;
/** Shortest prefix indexed: one-letter query words match one-letter words only. */
export const MIN_PREFIX = 2;
/**
 * Longest prefix indexed. It bounds a row's sets (a word gives at most MAX_PREFIX - 1), so memory
 * grows with the number of users, not with the length of what they type.
 */
export const MAX_PREFIX = 10;
/** Registry-only sets: the visible parts of a masked e-mail. '@' never occurs in a token. */
const REGISTRY_ONLY = 'ix:@';

const ASCII = /^[ -~]*$/;

export function fold(text: string): string {
  // Printable ASCII (most e-mails, many names) has nothing to decompose: lower-casing is the whole fold.
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Words of a name or country: letters and digits, anything else separates. */
export function wordTokens(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

/**
 * The index tokens of one word: its prefixes from MIN_PREFIX to MAX_PREFIX characters, or the
 * word itself when it is shorter than MIN_PREFIX.
 */
export function prefixTokens(word: string): string[] {
  if (word.length < MIN_PREFIX) return [word];
  const out: string[] = [];
  for (let length = MIN_PREFIX; length <= Math.min(word.length, MAX_PREFIX); length++) out.push(word.slice(0, length));
  return out;
}

/** The token a query word looks up: the word, cut to MAX_PREFIX (a longer one is compared on that much). */
export function queryToken(word: string): string {
  return word.slice(0, MAX_PREFIX);
}

/**
 * Pair sets are keyed by word starts of two lengths: two letters for a query word that short,
 * three for the rest, where two-letter starts are too common to narrow a search (at a million
 * members a pair set of two-letter starts holds tens of thousands of rows).
 */
const PAIR_LEVELS = [2, 3] as const;
/** The start length two query words are paired by: the longest level both words reach. */
const pairLevel = (a: string, b: string): number => (Math.min(a.length, b.length) >= 3 ? 3 : 2);

/**
 * The pair sets of a row's words: at each level, every two distinct word starts (or
 * UNPAIRED_SET alone when a row has too many).
 */
export function wordPairSets(words: readonly string[]): string[] {
  const pairs = new Set<string>();
  for (const level of PAIR_LEVELS) {
    const keys = [...new Set(words.map((word) => word.slice(0, level)))];
    if (keys.length > MAX_PAIRED_WORDS) return [UNPAIRED_SET];
    for (let i = 0; i < keys.length; i++) for (let j = i + 1; j < keys.length; j++) pairs.add(pairSet(keys[i]!, keys[j]!));
  }
  return [...pairs];
}

/**
 * Small memo tables for the projections' hot path: a row is re-indexed whenever its score
 * changes, and tokenising (Unicode folding, split) or parsing a date each time would be a large
 * part of a batch. Bounded: emptied when full, so memory stays flat whatever the number of users.
 */
const MEMO_LIMIT = 10_000;
export function memo<V>(table: Map<string, V>, key: string, compute: (key: string) => V): V {
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
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${twoDigits(date.getUTCDate())}/${twoDigits(date.getUTCMonth() + 1)}/${date.getUTCFullYear()}`;
}

export interface ParsedQuery {
  /** Sorted-set names of the index, all of which must match. */
  sets: Array<`ix:${string}`>;
  /**
   * Registry only: rows matching all of these match too (a row shown by its masked e-mail, found
   * by the parts shown). Absent when the query has no word, or for the ranking.
   */
  registrySets?: Array<`ix:${string}`>;
  /** A whole e-mail to look up instead. */
  email?: string;
  /**
   * Query words longer than MAX_PREFIX: the index finds rows by their first MAX_PREFIX
   * characters, and the rows found are then checked for the whole word (rowHasWordsStarting).
   */
  check?: string[];
}

const DATE = /^\d{2}\/\d{2}\/\d{4}$/;
/** A whole address: a local part with no mask in it, one '@', a domain. */
const WHOLE_EMAIL = /^[^\s@*]+@[^\s@*]+$/;

/**
 * Turns the text of a search box into index sets. A dd/mm/yyyy date is one token; with
 * `allowEmail` (the registry), a whole e-mail is looked up as such, and the words also look up
 * the registry-only sets of masked e-mails ("jan***@mail.com" typed as shown, or any of its words).
 */
export function parseQuery(input: string | undefined, allowEmail: boolean): ParsedQuery {
  const text = (input ?? '').trim();
  if (text === '') return { sets: [] };
  if (allowEmail && WHOLE_EMAIL.test(text)) return { sets: [], email: normalizeEmail(text) };
  const tokens: Array<{ token: string; date: boolean }> = [];
  const seen = new Set<string>();
  const add = (token: string, date: boolean) => {
    if (!seen.has(token) && tokens.length < MAX_QUERY_TOKENS) tokens.push({ token, date });
    seen.add(token);
  };
  const check: string[] = [];
  for (const part of text.split(/\s+/)) {
    if (DATE.test(part)) add(part, true);
    else {
      for (const word of wordTokens(part)) {
        add(queryToken(word), false);
        if (word.length > MAX_PREFIX && tokens.some((entry) => entry.token === queryToken(word))) check.push(word);
      }
    }
  }
  const sets = tokens.map((entry) => `ix:${entry.token}` as const);
  const checked = check.length > 0 ? { check } : {};
  if (!allowEmail || tokens.every((entry) => entry.date)) return { sets, ...checked };
  // A row shown by its masked e-mail has no name or country words; its date set is the usual one.
  return { sets, registrySets: tokens.map((entry) => (entry.date ? (`ix:${entry.token}` as const) : (`${REGISTRY_ONLY}${entry.token}` as const))), ...checked };
}

/**
 * Whether a row has, for each of `words`, a word starting with it: its name and country words,
 * and in the registry (`registry`) what the mask shows of the e-mail of a row without a name.
 */
export function rowHasWordsStarting(row: IndexedRow, words: readonly string[], registry: boolean): boolean {
  const own = wordTokens(`${row.fullname} ${row.country}`);
  if (registry && shownByEmail(row, own.length)) own.push(...wordTokens(maskEmail(row.email!)));
  return words.every((word) => own.some((token) => token.startsWith(word)));
}

/**
 * A row with more word starts than this gets no pair sets (a row's pairs grow with the square of
 * its words); it goes to UNPAIRED_SET instead. A 20-character name plus any country of the post
 * form stays well under it.
 */
export const MAX_PAIRED_WORDS = 16;
/** Rows with too many words to pair. Searches check it before trusting a pair set; normally empty. */
export const UNPAIRED_SET = 'ix:+';
/**
 * Rows whose card is on the site (hasPostedCard): the admin's posts. '/' is in no word token and
 * no date starts with it, and it makes the set unpairable, like a date's.
 */
export const POSTED_SET = 'ix:/posted';

/**
 * The pair set of two word starts of one length (PAIR_LEVELS): the rows holding a word starting
 * with each. A multi-word search starts from it instead of intersecting two large prefix sets
 * (projector/README.md, "Multi-word search"). '+' never occurs in a token, so pair names cannot
 * collide with word or date sets.
 */
export function pairSet(a: string, b: string): `ix:${string}` {
  return a < b ? `ix:${a}+${b}` : `ix:${b}+${a}`;
}

const isDateToken = (token: string) => token.includes('/');
/** Masked e-mail sets have no pair sets: they are only read by the registry, next to the word sets. */
const unpairable = (token: string) => isDateToken(token) || token.startsWith('@');

/**
 * How a page of rows matching every set of `sets` (from parseQuery) is read with the pair index.
 * `sets` come back sorted and deduplicated; `pairs[k]` is the pair set of two query words of
 * different pair keys, and `pairWords[k]` the indexes (into `sets`) of those of the two words
 * the pair set holds exactly (words no longer than a key; -1 for a longer word, whose own set
 * must still be intersected). Dates are not paired: a date set holds one day's registrations,
 * already small; nor are masked e-mail sets, nor two words of one key, which one word of a row
 * may both match.
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
      if (unpairable(a) || unpairable(b)) continue;
      const level = pairLevel(a, b);
      const [ka, kb] = [a.slice(0, level), b.slice(0, level)];
      if (ka === kb) continue;
      pairs.push(pairSet(ka, kb));
      pairWords.push([a.length <= level ? i : -1, b.length <= level ? j : -1]);
    }
  }
  return { sets, pairs, pairWords };
}

/** What a row is indexed by: its card's words and date, and the e-mail it is shown by without a card. */
export interface IndexedRow {
  fullname: string;
  country: string;
  createdAt: string;
  email?: string;
}

/**
 * The index sets one user belongs to: the prefixes of each name or country word, one for the
 * registration date, one per pair of word keys (or UNPAIRED_SET for a row with too many words),
 * POSTED_SET for a row with a card, and for a row without a name, the registry-only sets of its
 * masked e-mail.
 */
export function rowIndexSets(row: IndexedRow): Set<string> {
  return new Set(rowIndexSetList(row));
}

/** rowIndexSets as a list (no duplicates: prefixes are deduplicated, so are their pairs). */
export function rowIndexSetList(row: IndexedRow): string[] {
  const text = memo(textSetsMemo, `${row.fullname}\n${row.country}`, () => textSets(row.fullname, row.country));
  const day = displayDate(row.createdAt);
  const sets = day ? [...text.words, memo(dateSetMemo, day, (date) => `ix:${date}`)] : [...text.words];
  for (const set of text.pairs) sets.push(set);
  if (hasPostedCard(row)) sets.push(POSTED_SET);
  if (shownByEmail(row, text.words.length)) for (const set of maskedEmailSets(row.email!)) sets.push(set);
  return sets;
}

/**
 * A row the registry shows by its masked e-mail: no name (the registry's rule) and no words at
 * all, so a search's rows with words and its rows matched by a mask are never the same rows (the
 * adapters page their union by merging the two).
 */
function shownByEmail(row: IndexedRow, words: number): boolean {
  return row.fullname === '' && words === 0 && Boolean(row.email);
}

const textSetsMemo = new Map<string, { words: string[]; pairs: string[] }>();
const dateSetMemo = new Map<string, string>();

/** The prefix sets and the pair sets (or UNPAIRED_SET) of a card's name and country. */
function textSets(fullname: string, country: string): { words: string[]; pairs: string[] } {
  const words = [...new Set([...wordTokens(fullname), ...wordTokens(country)])];
  const pairs = wordPairSets(words);
  const prefixes = new Set(words.flatMap(prefixTokens));
  return { words: [...prefixes].map((prefix) => `ix:${prefix}`), pairs };
}

/**
 * The registry-only sets of what maskEmail shows of an address (the first characters of the
 * local part, the domain's words): the stars separate words like any other sign, so the hidden
 * rest of the local part is never indexed.
 */
export function maskedEmailSets(email: string): string[] {
  return [...new Set(wordTokens(maskEmail(email)).flatMap(prefixTokens))].map((prefix) => `${REGISTRY_ONLY}${prefix}`);
}

/** Fixed-width base-36 ordinal: lexical order of keys is registration order. */
export function rankKey(seq: number): string {
  return seq.toString(36).padStart(8, '0');
}

const RANK_KEY = /^[0-9a-z]{8}$/;

/** The ordinal `rankKey` wrote `key` from, or undefined for a string it cannot have written. */
export function rankKeySeq(key: string): number | undefined {
  return RANK_KEY.test(key) ? Number.parseInt(key, 36) : undefined;
}
