/**
 * The distinct tokens of a text index, each with a number, and which of them contain a term.
 * Tokens are kept in chunks of CHUNK, each also joined into one string, so a term is looked for
 * with one indexOf per occurrence instead of one call per token; a chunk is joined again only
 * after a token was added to it (in practice the last one).
 */
import { addChars, type RowChars } from './char-rows';
import { grow, int32s } from './typed-array';

const CHUNK = 4096;
const SEPARATOR = '\n';
/** Marks a registry-only token (a masked e-mail). Terms never hold a control character. */
const REGISTRY_ONLY = '\u0001';
const REGISTRY_ONLY_CODE = REGISTRY_ONLY.charCodeAt(0);

interface Chunk {
  text: string;
  /** Where each token of the chunk starts in `text`. */
  starts: Int32Array;
}

export class Vocabulary {
  private readonly ids = new Map<string, number>();
  private readonly tokens: string[] = [];
  private readonly chunks: Array<Chunk | undefined> = [];
  /** Per token, the letters and digits it holds (char-rows.ts), two words each. */
  private chars = new Int32Array(2048);

  /** The number of `token` (registry-only: found by registry searches alone), given one if new. */
  id(token: string, registryOnly = false): number {
    const key = registryOnly ? REGISTRY_ONLY + token : token;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.add(key);
      this.chunks[Math.floor(id / CHUNK)] = undefined;
    }
    return id;
  }

  private add(key: string): number {
    const id = this.tokens.length;
    this.tokens.push(key);
    this.ids.set(key, id);
    this.chars = grow(this.chars, 2 * id + 2, int32s);
    addChars(key, this.chars, 2 * id);
    return id;
  }

  /** The letters and digits the tokens `ids` hold, written into `into` (words 2–3: registry-only tokens). */
  charsOf(ids: ArrayLike<number>, into: RowChars): RowChars {
    into.fill(0);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const at = this.tokens[id]!.charCodeAt(0) === REGISTRY_ONLY_CODE ? 2 : 0;
      into[at]! |= this.chars[2 * id]!;
      into[at + 1]! |= this.chars[2 * id + 1]!;
    }
    return into;
  }

  /** How many tokens it holds (numbered from 0). */
  get size(): number {
    return this.tokens.length;
  }

  /** The tokens numbered `from` to `to` (excluded), as kept: for a snapshot (TextIndex.exportParts). */
  keys(from: number, to: number): string[] {
    return this.tokens.slice(from, to);
  }

  /** Appends tokens as `keys` gave them, numbered on from `size`; false when one is already held. */
  restore(keys: readonly string[]): boolean {
    for (const key of keys) {
      if (this.ids.has(key)) return false;
      this.add(key);
    }
    this.chunks.length = 0;
    return true;
  }

  /** The numbers of the tokens containing `term`; registry-only ones when `registry`. */
  containing(term: string, registry: boolean): number[] {
    const found: number[] = [];
    if (term === '' || term.includes(SEPARATOR)) return found;
    for (let c = 0; c * CHUNK < this.tokens.length; c++) {
      const chunk = this.chunk(c);
      let from = 0;
      for (let at = chunk.text.indexOf(term, from); at >= 0; at = chunk.text.indexOf(term, from)) {
        const local = lastAtOrBefore(chunk.starts, at);
        const id = c * CHUNK + local;
        if (registry || !this.tokens[id]!.startsWith(REGISTRY_ONLY)) found.push(id);
        from = local + 1 < chunk.starts.length ? chunk.starts[local + 1]! : chunk.text.length;
      }
    }
    return found;
  }

  private chunk(c: number): Chunk {
    let chunk = this.chunks[c];
    if (chunk) return chunk;
    const tokens = this.tokens.slice(c * CHUNK, (c + 1) * CHUNK);
    const starts = new Int32Array(tokens.length);
    let at = 0;
    tokens.forEach((token, i) => {
      starts[i] = at;
      at += token.length + SEPARATOR.length;
    });
    chunk = { text: tokens.join(SEPARATOR), starts };
    this.chunks[c] = chunk;
    return chunk;
  }
}

/** The index of the last start at or before `at` (starts ascend from 0). */
function lastAtOrBefore(starts: Int32Array, at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
