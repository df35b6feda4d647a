import { memberStory, streams, type EventStore, type MemberStoryEntry } from '@pass/events';

/**
 * A member's own stream as the admin's story (the kernel's `memberStory`: the timeline the
 * member's data export shares, with the priority and card after each event), read straight from
 * the event store, so it is exact even while projections lag.
 */
export async function memberHistory(store: EventStore, userId: string): Promise<MemberStoryEntry[]> {
  // The dashboard's language (its CSV too); the member's own export stays in English.
  return memberStory(await store.readStream(streams.user(userId)), 'es');
}

type Cell = (entry: MemberStoryEntry) => string | number;

const shownCard = (read: (card: Extract<MemberStoryEntry['card'], { status: 'shown' }>) => string): Cell =>
  (entry) => (entry.card.status === 'shown' ? read(entry.card) : '');

/**
 * The CSV's columns: the timeline's first, in their first order (spreadsheets built on them keep
 * working), then the state after each event. `card` is none, shown or erased; the card's fields
 * are empty unless shown, and `cardImage` also once a later change replaced the image.
 */
const COLUMNS: ReadonlyArray<[string, Cell]> = [
  ...(['revision', 'at', 'type', 'description', 'pointsDelta', 'passesDelta', 'points', 'passes', 'actor', 'correlationId'] as const).map(
    (key): [string, Cell] => [key, (entry) => entry[key]],
  ),
  ['priority', (entry) => entry.priority],
  ['card', (entry) => entry.card.status],
  ['cardFullname', shownCard((card) => card.fullname)],
  ['cardCountry', shownCard((card) => card.country)],
  ['cardLink', shownCard((card) => card.link)],
  ['cardMessage', shownCard((card) => card.message)],
  ['cardImage', shownCard((card) => card.imageUrl ?? '')],
];

/** RFC 4180 quoting; text that a spreadsheet would run as a formula is prefixed with '. */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function timelineCsv(entries: MemberStoryEntry[]): string {
  const lines = [COLUMNS.map(([name]) => name).join(',')];
  for (const entry of entries) lines.push(COLUMNS.map(([, read]) => cell(read(entry))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
