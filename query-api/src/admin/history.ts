import { pointTimeline, streams, type EventStore, type PointHistoryEntry } from '@pass/events';

/**
 * A member's own stream as an audit timeline (the kernel's `pointTimeline`, which the member's
 * data export shares), read straight from the event store, so it is exact even while
 * projections lag.
 */
export async function memberHistory(store: EventStore, userId: string): Promise<PointHistoryEntry[]> {
  // The dashboard's language (its CSV too); the member's own export stays in English.
  return pointTimeline(await store.readStream(streams.user(userId)), 'es');
}

const COLUMNS: Array<keyof PointHistoryEntry> = ['revision', 'at', 'type', 'description', 'pointsDelta', 'passesDelta', 'points', 'passes', 'actor', 'correlationId'];

/** RFC 4180 quoting; text that a spreadsheet would run as a formula is prefixed with '. */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function timelineCsv(entries: PointHistoryEntry[]): string {
  const lines = [COLUMNS.join(',')];
  for (const entry of entries) lines.push(COLUMNS.map((column) => cell(entry[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
