/**
 * `array` with room for at least `size` items: itself when it has it, else a copy at least twice
 * as long (so appending one at a time costs amortised constant time), new slots set to `fill`.
 */
export function grow<T extends Int32Array | Uint8Array>(array: T, size: number, make: (n: number) => T, fill = 0): T {
  if (size <= array.length) return array;
  const grown = make(Math.max(size, array.length * 2));
  grown.set(array);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}

export const int32s = (n: number) => new Int32Array(n);
export const uint8s = (n: number) => new Uint8Array(n);
