import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

/** One plain-text mail to one address. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Where the site's mails go: an SMTP server (`SMTP_URL`), or, in standalone without one, an
 * outbox folder of RFC 5322 files an operator can open or forward. Tests read a memory one.
 */
export interface Mailer {
  /** Says where mails go, without personal data (for the start-up line). */
  readonly describe: string;
  send(mail: Mail): Promise<void>;
  /**
   * Builds the message `send` would and delivers nothing: the work a mail costs, for a request
   * whose cost must not tell whether a mail went (a reset asked for an unknown address).
   */
  rehearse(mail: Mail): Promise<void>;
  close(): Promise<void>;
}

/** Builds raw messages without sending them (nodemailer's stream transport, CRLF line ends). */
const composer = () => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/** Mails over SMTP with nodemailer: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
export class SmtpMailer implements Mailer {
  readonly describe: string;
  private readonly transport: Transporter;
  private readonly composer = composer();

  constructor(smtpUrl: string, private readonly from: string) {
    this.transport = nodemailer.createTransport(smtpUrl);
    const url = new URL(smtpUrl);
    this.describe = `mail over SMTP to ${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...mail });
  }

  async rehearse(mail: Mail): Promise<void> {
    await this.composer.sendMail({ from: this.from, ...mail });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/**
 * The message with its plain-text body as written (`7bit`) rather than quoted-printable, when the
 * text allows it: ASCII only and no line over RFC 5322's 998 characters. Nodemailer encodes any
 * line over 76 characters, which splits a reset link across lines (`=`, `=3D`) for whoever reads
 * or copies the file as it is. Anything else (non-ASCII text, another shape) is left as built.
 */
export function withPlainTextBody(message: Buffer, text: string): Buffer {
  const raw = message.toString('latin1');
  const headerEnd = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, headerEnd);
  const encoding = /^Content-Transfer-Encoding: quoted-printable$/im;
  const lines = text.split(/\r?\n/);
  const writable = lines.every((line) => line.length <= 998 && /^[\x20-\x7e\t]*$/.test(line));
  if (headerEnd < 0 || !writable || !encoding.test(head) || !/^Content-Type: text\/plain;/im.test(head)) return message;
  return Buffer.from(`${head.replace(encoding, 'Content-Transfer-Encoding: 7bit')}\r\n\r\n${lines.join('\r\n')}`, 'latin1');
}

/**
 * Standalone without SMTP: each mail is written, as the raw message nodemailer would have sent
 * (headers, CRLF line ends) but with its text readable as it is (`withPlainTextBody`), to
 * `<dir>/<time>-<id>.eml`, atomically (a temp file, then a rename). `npm run outbox` lists them.
 */
export class OutboxMailer implements Mailer {
  readonly describe: string;
  private readonly transport = composer();

  constructor(readonly dir: string, private readonly from: string) {
    this.describe = `no SMTP_URL: mails are written to ${dir} as .eml files`;
  }

  async send(mail: Mail): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.from, ...mail })) as { message: Buffer };
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}.eml`;
    await writeFile(join(this.dir, `.${name}.tmp`), withPlainTextBody(info.message, mail.text), { mode: 0o600 });
    await rename(join(this.dir, `.${name}.tmp`), join(this.dir, name));
  }

  async rehearse(mail: Mail): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...mail });
  }

  async close(): Promise<void> {}
}

/** Keeps what it is given (tests, and an API composed without a mailer). */
export class MemoryMailer implements Mailer {
  readonly describe = 'mails kept in memory (not sent)';
  readonly sent: Mail[] = [];
  readonly rehearsed: Mail[] = [];

  async send(mail: Mail): Promise<void> {
    this.sent.push(mail);
  }

  async rehearse(mail: Mail): Promise<void> {
    this.rehearsed.push(mail);
  }

  async close(): Promise<void> {}
}
