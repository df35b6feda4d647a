/**
 * The layout of a read-model snapshot file (read-models/memory-snapshot.ts), for tests that
 * tamper with one as someone with write access to DATA_DIR would, or seal one as the holder of
 * an installation's secret would.
 */
import { SnapshotSeal } from '../read-models/memory-snapshot';

/** Where one item (the header, or a part) lies in the file: its length prefix, its body, its end (after its tag). */
export interface SnapshotItem {
  start: number;
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

const TAG_BYTES = 32;

/** The file's items in order, the header first (the closing tag after them is not one). */
export function snapshotItems(bytes: Buffer): SnapshotItem[] {
  const items: SnapshotItem[] = [];
  let at = 0;
  while (at + 4 <= bytes.length - TAG_BYTES) {
    const bodyStart = at + 4;
    const bodyEnd = bodyStart + bytes.readUInt32BE(at);
    items.push({ start: at, bodyStart, bodyEnd, end: bodyEnd + TAG_BYTES });
    at = bodyEnd + TAG_BYTES;
  }
  return items;
}

/**
 * The file without its last `count` parts, its header's part count lowered to match (same
 * length), the rest (tags, closing tag) as it was: what cutting a file down to whole parts looks
 * like to someone without the secret.
 */
export function dropLastParts(bytes: Buffer, count: number): Buffer {
  const items = snapshotItems(bytes);
  const header = items[0]!;
  const text = bytes.subarray(header.bodyStart, header.bodyEnd).toString('utf8');
  const parts = Number(/"parts":(\d+)/.exec(text)![1]);
  const lowered = text.replace(`"parts":${parts}`, `"parts":${String(parts - count).padStart(String(parts).length, ' ')}`);
  if (lowered.length !== text.length) throw new Error('the part count changed length');
  return Buffer.concat([bytes.subarray(0, header.bodyStart), Buffer.from(lowered), bytes.subarray(header.bodyEnd, items[items.length - count]!.start), bytes.subarray(items[items.length - 1]!.end)]);
}

/** The file sealed anew with `secret` (as the installation holding that secret would seal it). */
export function resealSnapshot(bytes: Buffer, secret: string): Buffer {
  const seal = new SnapshotSeal(secret);
  const items = snapshotItems(bytes).flatMap((item) => {
    const body = bytes.subarray(item.bodyStart, item.bodyEnd);
    return [bytes.subarray(item.start, item.bodyStart), body, seal.tag(body)];
  });
  return Buffer.concat([...items, seal.close()]);
}
