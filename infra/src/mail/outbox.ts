import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One mail of the outbox folder as a person reads it: its body decoded, its links whole. */
export interface OutboxMail {
  file: string;
  date: string;
  to: string;
  subject: string;
  links: string[];
}

/** The header block unfolded, one lower-cased name to its value (the first of repeated names). */
function headersOf(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** Bytes of a quoted-printable text: soft line breaks joined, `=XX` escapes undone. */
function quotedPrintable(body: string): Buffer {
  const joined = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const escape = joined[i] === '=' ? /^[0-9A-Fa-f]{2}$/.exec(joined.slice(i + 1, i + 3)) : null;
    if (escape) {
      bytes.push(parseInt(escape[0], 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) as text. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (word, charset: string, kind: string, data: string) => {
      try {
        const bytes = kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : quotedPrintable(data.replace(/_/g, ' '));
        return new TextDecoder(charset).decode(bytes);
      } catch {
        return word;
      }
    });
}

/** A raw RFC 5322 message's date, recipient, subject and the links of its text, decoded. */
export function readMail(file: string, raw: string): OutboxMail {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const body = split ? raw.slice(split.index + split[0].length) : '';
  const headers = headersOf(head);
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'quoted-printable' ? quotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64') : Buffer.from(body, 'latin1');
  const text = new TextDecoder('utf-8').decode(bytes);
  const date = new Date(headers.get('date') ?? '');
  return {
    file,
    date: Number.isNaN(date.getTime()) ? (headers.get('date') ?? '') : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'),
    to: decodeWords(headers.get('to') ?? ''),
    subject: decodeWords(headers.get('subject') ?? ''),
    links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((match) => match[0]),
  };
}

/**
 * The newest `count` mails of the outbox folder, newest first (a file's name starts with the time
 * it was written). None when the folder does not exist yet.
 */
export async function newestMails(dir: string, count: number): Promise<OutboxMail[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const newest = names.filter((name) => name.endsWith('.eml') && !name.startsWith('.')).sort().reverse().slice(0, count);
  return Promise.all(newest.map(async (name) => readMail(join(dir, name), await readFile(join(dir, name), 'latin1'))));
}
