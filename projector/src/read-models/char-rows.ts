/**
 * Rows by the letters and digits their tokens hold, one bit per row each: a one-character term
 * ("a") matches most of the vocabulary, and finding those tokens one by one costs far more than
 * reading these bits (120 ms against 2 ms at a million distinct words: docs/architecture.md,
 * "Search"). Registry-only tokens (masked e-mails) count apart, so the public ranking never
 * finds a row by them. Other characters are looked for in the vocabulary as longer terms are.
 */
import { grow, int32s } from './typed-array';

const CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Which of CHARS a row's tokens hold, as four words: character c is bit c % 32 of word c >>> 5,
 * words 0–1 for the tokens anyone's search finds, words 2–3 for the registry-only ones.
 */
export type RowChars = Int32Array;
export const rowChars = (): RowChars => new Int32Array(4);

/** Adds the characters of `token` to the pair of words at `at` of `bits`. */
export function addChars(token: string, bits: Int32Array, at: number): void {
  for (let i = 0; i < token.length; i++) {
    const c = CHARS.indexOf(token[i]!);
    if (c >= 0) bits[at + (c >>> 5)]! |= 1 << (c & 31);
  }
}

export class CharRows {
  private shown: Int32Array[] = CHARS.split('').map(() => new Int32Array(0));
  private registry: Int32Array[] = CHARS.split('').map(() => new Int32Array(0));

  /** Whether `term` is answered here. */
  covers(term: string): boolean {
    return term.length === 1 && CHARS.includes(term);
  }

  /** Room for rows up to `ordinalEnd`. */
  reserve(ordinalEnd: number): void {
    const words = (ordinalEnd + 31) >>> 5;
    if (words <= this.shown[0]!.length) return;
    this.shown = this.shown.map((bits) => grow(bits, words, int32s));
    this.registry = this.registry.map((bits) => grow(bits, words, int32s));
  }

  /** The row's characters as its tokens go from `before` to `after`. */
  update(ordinal: number, before: RowChars, after: RowChars): void {
    const word = ordinal >>> 5;
    const bit = 1 << (ordinal & 31);
    for (let w = 0; w < 4; w++) {
      const family = w < 2 ? this.shown : this.registry;
      for (let changed = before[w]! ^ after[w]!; changed !== 0; ) {
        const low = changed & -changed;
        changed ^= low;
        const rows = family[((w & 1) << 5) | (31 - Math.clz32(low))]!;
        if (after[w]! & low) rows[word]! |= bit;
        else rows[word]! &= ~bit;
      }
    }
  }

  /** Writes into `bits` the rows holding `char` (with the registry's, for a registry search). */
  rowsOf(char: string, registry: boolean, bits: Int32Array, words: number): void {
    const c = CHARS.indexOf(char);
    const shown = this.shown[c]!;
    bits.set(shown.subarray(0, words));
    if (registry) {
      const more = this.registry[c]!;
      for (let w = 0; w < words; w++) bits[w]! |= more[w]!;
    }
  }
}
