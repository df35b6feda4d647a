/**
 * Rows by the letters and digits their tokens hold, one bit per row each: a one-character term
 * ("a") matches most of the vocabulary, and finding those tokens one by one costs far more than
 * reading these bits (120 ms against 2 ms at a million distinct words: docs/architecture.md,
 * "Search"). Registry-only tokens (masked e-mails) count apart, so the public ranking never
 * finds a row by them. Other characters are looked for in the vocabulary as longer terms are.
 */
const CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface RowTokens {
  /** Tokens anyone's search finds the row by. */
  shown: readonly string[];
  /** Tokens only the registry finds it by. */
  registryOnly: readonly string[];
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
    const size = Math.max(words, this.shown[0]!.length * 2);
    const grow = (bits: Int32Array) => {
      const grown = new Int32Array(size);
      grown.set(bits);
      return grown;
    };
    this.shown = this.shown.map(grow);
    this.registry = this.registry.map(grow);
  }

  /** The row's characters as its tokens go from `before` to `after`. */
  update(ordinal: number, before: RowTokens, after: RowTokens): void {
    this.apply(this.shown, ordinal, present(before.shown), present(after.shown));
    this.apply(this.registry, ordinal, present(before.registryOnly), present(after.registryOnly));
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

  private apply(family: Int32Array[], ordinal: number, was: boolean[], is: boolean[]): void {
    const word = ordinal >>> 5;
    const bit = 1 << (ordinal & 31);
    for (let c = 0; c < CHARS.length; c++) {
      if (was[c] === is[c]) continue;
      if (is[c]) family[c]![word]! |= bit;
      else family[c]![word]! &= ~bit;
    }
  }
}

function present(tokens: readonly string[]): boolean[] {
  const found = new Array<boolean>(CHARS.length).fill(false);
  for (const token of tokens) {
    for (let i = 0; i < token.length; i++) {
      const c = CHARS.indexOf(token[i]!);
      if (c >= 0) found[c] = true;
    }
  }
  return found;
}
