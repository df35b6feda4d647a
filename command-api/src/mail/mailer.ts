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
 * Standalone without SMTP: each mail is written, as the raw message nodemailer would have sent
 * (headers, CRLF line ends), to `<dir>/<time>-<id>.eml`, atomically (a temp file, then a rename).
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
    await writeFile(join(this.dir, `.${name}.tmp`), info.message, { mode: 0o600 });
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
