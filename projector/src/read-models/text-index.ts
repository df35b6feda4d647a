/**
 * The search index that finds any part of a token (search-text.ts), in process memory: a
 * vocabulary of distinct tokens scanned for each term, the rows of each token, and each row's
 * ranking score, so a query's matches are counted exactly and put in ranking order without a
 * sorted set per token. At a million rows a query touches the rows of the tokens it matches and
 * reads one bit per row; the costs and the layout are in docs/architecture.md, "Search".
 * Rows are numbered by their rank key's ordinal (registration order), which is also how the
 * ranking breaks ties between equal scores.
 */
import { MAX_TERMS, type SearchText } from './search-text';
import { CharRows, rowChars } from './char-rows';
import { grow, int32s, uint8s } from './typed-array';
import { Vocabulary } from './vocabulary';

/** Score of a number with no row in the ranking (scores are 0 or negative: see userScore). */
const ABSENT = 1;
const POSTED = 1;
/** Pass counts up to this are ordered by counting (an array of this many slots); beyond, by sorting. */
const MOST_PASSES_COUNTED = 1 << 16;

export interface TextQuery {
  terms: readonly string[];
  /** The registry: rows shown by their masked e-mail are found by it. */
  registry: boolean;
  /** Members only (passes > 0): the ranking and the sponsors. */
  membersOnly: boolean;
  /** Only rows whose card is on the site (the admin's posts). */
  posted: boolean;
  offset: number;
  limit: number;
}

/** A page of matches: their exact count and the ordinals of the page, in ranking order. */
export interface TextPage {
  total: number;
  ordinals: number[];
}

/**
 * One token's rows: ordinals kept in ascending order, so a row leaving is found by bisection.
 * New rows arrive last (ordinals grow with registration) and are appended; a row changing its
 * text moves the ones after it (one copyWithin: microseconds for a token of a million rows).
 */
class Posting {
  ids = new Int32Array(2);
  size = 0;

  add(ordinal: number): void {
    this.ids = grow(this.ids, this.size + 1, int32s);
    const at = this.size === 0 || this.ids[this.size - 1]! < ordinal ? this.size : this.position(ordinal);
    if (at < this.size && this.ids[at] === ordinal) return;
    this.ids.copyWithin(at + 1, at, this.size);
    this.ids[at] = ordinal;
    this.size++;
  }

  remove(ordinal: number): void {
    const at = this.position(ordinal);
    if (at >= this.size || this.ids[at] !== ordinal) return;
    this.ids.copyWithin(at, at + 1, this.size);
    this.size--;
  }

  /** The first place holding an ordinal not below `ordinal`. */
  private position(ordinal: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < ordinal) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * The index as plain data, for a snapshot of the memory read models (memory-state.ts): the
 * vocabulary in parts, then the rows in ordinal order, each with its score, flags and token
 * numbers. A restart restores it without cutting and folding every row's text again.
 */
export type TextIndexPart =
  | { part: 'textTokens'; tokens: string[] }
  | { part: 'textRows'; from: number; scores: Int32Array; flags: Uint8Array; sizes: Uint8Array; tokens: Int32Array };

export class TextIndex {
  private readonly vocabulary = new Vocabulary();
  private readonly chars = new CharRows();
  private readonly postings: Posting[] = [];
  private scores = new Int32Array(1024).fill(ABSENT);
  private flags = new Uint8Array(1024);
  /** Per ordinal, the token ids of its text: `rowStart` into `pool`, `rowSize` of them. */
  private rowStart = new Int32Array(1024);
  private rowSize = new Uint8Array(1024);
  private pool = new Int32Array(4096);
  private poolUsed = 0;
  private poolLive = 0;
  private ordinalEnd = 0;
  /**
   * Scratch of a query, kept between queries: on this kind of machine a fresh buffer's first
   * touch costs more than the query's own work (docs/benchmarks.md, "This machine's page faults").
   */
  private matches = new Int32Array(0);
  /** One bit per ordinal for each term of a query. */
  private bits: Int32Array[] = [];
  private counts = new Int32Array(64);
  /** A row's characters before and after a change (CharRows.update). */
  private readonly charsBefore = rowChars();
  private readonly charsAfter = rowChars();

  private reserve(ordinal: number): void {
    if (ordinal < this.ordinalEnd) return;
    this.ordinalEnd = ordinal + 1;
    this.scores = grow(this.scores, this.ordinalEnd, int32s, ABSENT);
    this.flags = grow(this.flags, this.ordinalEnd, uint8s);
    this.rowStart = grow(this.rowStart, this.ordinalEnd, int32s);
    this.rowSize = grow(this.rowSize, this.ordinalEnd, uint8s);
    this.chars.reserve(this.ordinalEnd);
  }

  /** The row `ordinal`'s text, replacing what it had; null: it has none (erased). */
  setText(ordinal: number, text: SearchText | null): void {
    this.reserve(ordinal);
    this.flags[ordinal] = text?.posted ? POSTED : 0;
    const kept = this.tokenIds(text);
    // Only the tokens that come or go touch their rows: a date or a country usually stays.
    const start = this.rowStart[ordinal]!;
    const size = this.rowSize[ordinal]!;
    const before = this.pool.subarray(start, start + size);
    for (let i = 0; i < size; i++) if (!kept.includes(before[i]!)) this.postings[before[i]!]!.remove(ordinal);
    for (const id of kept) if (!before.includes(id)) (this.postings[id] ??= new Posting()).add(ordinal);
    this.chars.update(ordinal, this.vocabulary.charsOf(before, this.charsBefore), this.vocabulary.charsOf(kept, this.charsAfter));
    this.poolLive -= size;
    this.rowSize[ordinal] = 0;
    if (kept.length === 0) return;
    this.compactIfWasteful(kept.length);
    this.pool = grow(this.pool, this.poolUsed + kept.length, int32s);
    this.rowStart[ordinal] = this.poolUsed;
    this.rowSize[ordinal] = kept.length;
    this.pool.set(kept, this.poolUsed);
    this.poolUsed += kept.length;
    this.poolLive += kept.length;
  }

  /** The distinct token numbers of a text (at most 255: a row's count is a byte). */
  private tokenIds(text: SearchText | null): number[] {
    const ids: number[] = [];
    if (!text) return ids;
    for (const token of text.tokens) {
      const id = this.vocabulary.id(token);
      if (!ids.includes(id) && ids.length < 255) ids.push(id);
    }
    if (text.masked && ids.length < 255) ids.push(this.vocabulary.id(text.masked, true));
    return ids;
  }

  /** The row's ranking score; null: it left the ranking. */
  setScore(ordinal: number, score: number | null): void {
    this.reserve(ordinal);
    this.scores[ordinal] = score === null ? ABSENT : score;
  }

  /**
   * The index in parts of at most `size` tokens or rows. The arrays may be views of the index's
   * own: serialise them before the next change.
   */
  exportParts(size: number): TextIndexPart[] {
    const parts: TextIndexPart[] = [];
    for (let from = 0; from < this.vocabulary.size; from += size) parts.push({ part: 'textTokens', tokens: this.vocabulary.keys(from, from + size) });
    for (let from = 0; from < this.ordinalEnd; from += size) {
      const to = Math.min(this.ordinalEnd, from + size);
      const sizes = this.rowSize.subarray(from, to);
      const tokens = new Int32Array(sizes.reduce((sum, n) => sum + n, 0));
      let at = 0;
      for (let ordinal = from; ordinal < to; ordinal++) {
        const start = this.rowStart[ordinal]!;
        tokens.set(this.pool.subarray(start, start + this.rowSize[ordinal]!), at);
        at += this.rowSize[ordinal]!;
      }
      parts.push({ part: 'textRows', from, scores: this.scores.subarray(from, to), flags: this.flags.subarray(from, to), sizes, tokens });
    }
    return parts;
  }

  /**
   * Takes the next part of another index's `exportParts` (in their order) into this one, new
   * when the first arrives. Throws on a part that does not fit what came before.
   */
  restore(part: TextIndexPart): void {
    if (part.part === 'textTokens') {
      if (this.ordinalEnd > 0 || !this.vocabulary.restore(part.tokens)) throw new Error('the text index has tokens out of place');
      return;
    }
    const { from, scores, flags, sizes, tokens } = part;
    const fits = from === this.ordinalEnd && scores.length === sizes.length && flags.length === sizes.length && tokens.length === sizes.reduce((sum, n) => sum + n, 0);
    if (!fits || tokens.some((id) => id < 0 || id >= this.vocabulary.size)) throw new Error('the text index has rows out of place');
    if (sizes.length === 0) return;
    this.reserve(from + sizes.length - 1);
    this.scores.set(scores, from);
    this.flags.set(flags, from);
    this.pool = grow(this.pool, this.poolUsed + tokens.length, int32s);
    this.pool.set(tokens, this.poolUsed);
    let at = 0;
    for (let i = 0; i < sizes.length; i++) {
      const ordinal = from + i;
      const ids = tokens.subarray(at, at + sizes[i]!);
      this.rowStart[ordinal] = this.poolUsed + at;
      this.rowSize[ordinal] = ids.length;
      // Ordinals come in ascending order: each one is appended to its tokens' postings.
      for (const id of ids) (this.postings[id] ??= new Posting()).add(ordinal);
      if (ids.length > 0) this.chars.update(ordinal, this.charsBefore.fill(0), this.vocabulary.charsOf(ids, this.charsAfter));
      at += ids.length;
    }
    this.poolUsed += tokens.length;
    this.poolLive += tokens.length;
  }

  /** Rewrites the pool without the slots of replaced texts once they are most of it. */
  private compactIfWasteful(adding: number): void {
    if (this.poolUsed + adding <= this.pool.length || this.poolUsed < 2 * this.poolLive) return;
    const pool = new Int32Array(Math.max(4096, 2 * (this.poolLive + adding)));
    let used = 0;
    for (let ordinal = 0; ordinal < this.ordinalEnd; ordinal++) {
      const size = this.rowSize[ordinal]!;
      pool.set(this.pool.subarray(this.rowStart[ordinal]!, this.rowStart[ordinal]! + size), used);
      this.rowStart[ordinal] = used;
      used += size;
    }
    this.pool = pool;
    this.poolUsed = used;
  }

  /** One page of the rows matching every term, in ranking order, with their exact count. */
  page(query: TextQuery): TextPage {
    const found = this.matching(query);
    const matches = this.matches.subarray(0, found);
    const scores = this.scores;
    // How many matches hold each pass count (minus the score); the most passes come first.
    const counts = (this.counts = grow(this.counts, MOST_PASSES_COUNTED + 1, int32s));
    let most = 0;
    for (let i = 0; i < found; i++) {
      const passes = -scores[matches[i]!]!;
      if (passes > MOST_PASSES_COUNTED) {
        counts.fill(0);
        return this.sortedPage(matches, query);
      }
      counts[passes]!++;
      if (passes > most) most = passes;
    }
    const ordinals: number[] = [];
    const end = Math.min(found, query.offset + query.limit);
    let groupStart = 0;
    for (let passes = most; passes >= 0 && groupStart < end; passes--) {
      const size = counts[passes]!;
      if (groupStart + size > query.offset) pickFromGroup(matches, scores, -passes, Math.max(0, query.offset - groupStart), end - query.offset, ordinals);
      groupStart += size;
    }
    counts.fill(0, 0, most + 1);
    return { total: found, ordinals };
  }

  /** The same page by sorting, for pass counts too high to count by (never seen in practice). */
  private sortedPage(matches: Int32Array, query: TextQuery): TextPage {
    const rows = [...matches].sort((a, b) => this.scores[a]! - this.scores[b]! || a - b);
    return { total: rows.length, ordinals: rows.slice(query.offset, query.offset + query.limit) };
  }

  /**
   * Fills `matches` with the ordinals in scope matching every term, ascending, and returns how
   * many: each term sets the bits of its tokens' rows, the terms' bits are intersected, and the
   * bits left are read out in order.
   */
  private matching(query: TextQuery): number {
    // Each term: its rows' bits read as they are (one character), or its tokens' postings.
    const terms = query.terms.slice(0, MAX_TERMS).map((term) =>
      this.chars.covers(term)
        ? { char: term, postings: [] }
        : {
            char: undefined,
            postings: this.vocabulary
              .containing(term, query.registry)
              .map((id) => this.postings[id])
              .filter((p): p is Posting => p !== undefined && p.size > 0),
          },
    );
    if (terms.length === 0 || terms.some((term) => term.char === undefined && term.postings.length === 0)) return 0;
    this.reserveScratch();
    const words = (this.ordinalEnd + 31) >>> 5;
    const all = this.bits[0]!;
    terms.forEach(({ char, postings }, t) => {
      const bits = this.bits[t]!;
      if (char !== undefined) this.chars.rowsOf(char, query.registry, bits, words);
      else {
        bits.fill(0, 0, words);
        for (const posting of postings) {
          const ids = posting.ids;
          for (let i = 0; i < posting.size; i++) bits[ids[i]! >>> 5]! |= 1 << (ids[i]! & 31);
        }
      }
      if (t > 0) for (let w = 0; w < words; w++) all[w]! &= bits[w]!;
    });
    return this.readOut(all, words, query);
  }

  private reserveScratch(): void {
    if (this.matches.length >= this.ordinalEnd) return;
    const size = Math.ceil(this.ordinalEnd * 1.25);
    this.matches = new Int32Array(size);
    this.bits = Array.from({ length: MAX_TERMS }, () => new Int32Array((size + 31) >>> 5));
  }

  /** Copies the set bits of rows in scope into `matches`, ascending. */
  private readOut(bits: Int32Array, words: number, query: TextQuery): number {
    const { matches, scores, flags } = this;
    const highest = query.membersOnly ? -1 : 0;
    const flag = query.posted ? POSTED : 0;
    let n = 0;
    for (let w = 0; w < words; w++) {
      let x = bits[w]!;
      while (x !== 0) {
        const low = x & -x;
        const ordinal = (w << 5) | (31 - Math.clz32(low));
        x ^= low;
        if (scores[ordinal]! <= highest && (flags[ordinal]! & flag) === flag) matches[n++] = ordinal;
      }
    }
    return n;
  }
}

/** Appends to `out`, after skipping `skip`, the next matches of score `score` (in ordinal order) until it holds `want`. */
function pickFromGroup(matches: Int32Array, scores: Int32Array, score: number, skip: number, want: number, out: number[]): void {
  for (let i = 0; i < matches.length && out.length < want; i++) {
    const ordinal = matches[i]!;
    if (scores[ordinal] !== score) continue;
    if (skip > 0) skip--;
    else out.push(ordinal);
  }
}
