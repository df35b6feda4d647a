/**
 * What a file really is, from its first bytes (never from its name or declared type, which the
 * client controls).
 */
export type SniffedType = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'pdf' | 'executable' | 'unknown';

const startsWith = (buf: Buffer, bytes: number[], offset = 0) => bytes.every((byte, index) => buf[offset + index] === byte);
const ascii = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString('latin1');

export function sniffContentType(buf: Buffer): SniffedType {
  if (buf.length < 4) return 'unknown';
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(buf, 0, 6) === 'GIF87a' || ascii(buf, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return 'webp';
  if (ascii(buf, 4, 8) === 'ftyp' && /^(avif|avis)$/.test(ascii(buf, 8, 12))) return 'avif';
  // A PDF may start after a little junk; readers accept the header in the first 1 KiB.
  if (buf.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  if (isExecutable(buf)) return 'executable';
  return 'unknown';
}

function isExecutable(buf: Buffer): boolean {
  return (
    startsWith(buf, [0x4d, 0x5a]) || // MZ: Windows PE/DOS
    startsWith(buf, [0x7f, 0x45, 0x4c, 0x46]) || // ELF
    startsWith(buf, [0xfe, 0xed, 0xfa, 0xce]) || // Mach-O 32
    startsWith(buf, [0xfe, 0xed, 0xfa, 0xcf]) || // Mach-O 64
    startsWith(buf, [0xce, 0xfa, 0xed, 0xfe]) ||
    startsWith(buf, [0xcf, 0xfa, 0xed, 0xfe]) ||
    startsWith(buf, [0xca, 0xfe, 0xba, 0xbe]) || // Mach-O universal / Java class
    startsWith(buf, [0x23, 0x21]) || // #! script
    startsWith(buf, [0x50, 0x4b, 0x03, 0x04]) || // zip: jar, apk
    startsWith(buf, [0x00, 0x61, 0x73, 0x6d]) // WebAssembly
  );
}
