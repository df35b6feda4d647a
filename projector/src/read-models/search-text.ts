/**
 * What a search box matches (docs/architecture.md, "Search"): each term of the query, folded
 * (case and accents), must be part of one token of the row, anywhere in it ("esk" finds Desk,
 * "12/2026" a registration that month). A row's tokens are the whitespace-separated words of its
 * card's name and country and its registration date as the registry shows it (dd/mm/yyyy); in
 * the registry, a row without a name is shown, and found, by its masked e-mail, never by the
 * part the mask hides. The index that answers (text-index.ts) and the projection that feeds it
 * both read this file, so they cut text the same way.
 */
import { hasPostedCard, maskEmail } from '@pass/events';
import { displayDate, fold, memo, type IndexedRow } from './search';

/** Terms a query keeps: more narrow the search no further than four do. */
export const MAX_TERMS = 4;
/** A term with none of these characters (only signs) matches nothing rather than everything. */
const HAS_WORD = /[\p{L}\p{N}]/u;
/** Control characters: never part of a term (the index marks registry-only tokens with one). */
const CONTROL = /\p{Cc}/gu;

/** The searchable text of one row, as the projection hands it to the index. */
export interface SearchText {
  /** Folded tokens of the card's name and country, and the date (dd/mm/yyyy), deduplicated. */
  tokens: string[];
  /** The folded masked e-mail of a row the registry shows by it; '' for any other row. */
  masked: string;
  /** Whether the row's card is on the site (the admin's posts). */
  posted: boolean;
}

function textTokens(text: string): string[] {
  return fold(text)
    .replace(CONTROL, '')
    .split(/\s+/u)
    .filter((token) => token !== '');
}

/** Name and country words by their text: most rows share them, and folding is the costly part. */
const wordsMemo = new Map<string, string[]>();

/** The search text of `row` (see SearchText). */
export function searchText(row: IndexedRow): SearchText {
  const words = memo(wordsMemo, `${row.fullname}\n${row.country}`, () => [...new Set([...textTokens(row.fullname), ...textTokens(row.country)])]);
  const day = displayDate(row.createdAt);
  // A word written like a date is that date's token already.
  const tokens = day && !words.includes(day) ? [...words, day] : [...words];
  // The registry's rule: a row with no name is shown by its masked e-mail.
  const masked = row.fullname === '' && words.length === 0 && row.email ? fold(maskEmail(row.email)).replace(CONTROL, '') : '';
  return { tokens, masked, posted: hasPostedCard(row) };
}

export const sameSearchText = (a: SearchText, b: SearchText): boolean =>
  a.masked === b.masked && a.posted === b.posted && a.tokens.length === b.tokens.length && a.tokens.every((token, i) => token === b.tokens[i]);

/**
 * Signs that join words a member may type apart or together ("jose-maria" for José María,
 * "lopez, peru"): a term is cut there too. Never '/', '@', '.' or '*', which dates and masked
 * e-mails are typed with.
 */
const JOINERS = /[-,;]+/u;

/**
 * The terms of a search box: separated by whitespace (or JOINERS), folded, deduplicated, at most
 * MAX_TERMS. Empty when nothing in it can match (no letter or digit).
 */
export function searchTerms(input: string | undefined): string[] {
  const terms = textTokens(input ?? '')
    .flatMap((term) => term.split(JOINERS))
    .filter((term) => HAS_WORD.test(term));
  return [...new Set(terms)].slice(0, MAX_TERMS);
}

// One record per row in Redis (`sx`, and the change log the query side follows): tokens joined
// by spaces (a token holds none), then the masked e-mail, then the posted flag.
const FIELD = '\u001f';

export function encodeSearchText(text: SearchText): string {
  return `${text.tokens.join(' ')}${FIELD}${text.masked}${FIELD}${text.posted ? '1' : ''}`;
}

export function decodeSearchText(record: string): SearchText {
  const [tokens = '', masked = '', posted = ''] = record.split(FIELD);
  return { tokens: tokens === '' ? [] : tokens.split(' '), masked, posted: posted === '1' };
}
