import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { OutboxMailer, withPlainTextBody } from './mailer';

const dir = mkdtempSync(join(tmpdir(), 'outbox-mailer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
const build = async (text: string) => ((await composer.sendMail({ from: 'Pass <no-reply@example.org>', to: 'ann@example.com', subject: 'Hi', text })) as { message: Buffer }).message;
const longLink = `https://example.org/content/reset-password#token=${'a'.repeat(120)}`;

describe('the outbox writes a mail text as it is when 7bit allows it', () => {
  it('an ASCII text with a link over 76 characters: 7bit, the link whole on its line', async () => {
    const text = `Hello,\n\n${longLink}\n`;
    const raw = withPlainTextBody(await build(text), text).toString('latin1');
    expect(raw).toMatch(/^Content-Transfer-Encoding: 7bit\r$/m);
    expect(raw).not.toMatch(/quoted-printable/i);
    expect(raw.endsWith(`\r\n\r\nHello,\r\n\r\n${longLink}\r\n`)).toBe(true);
    // The other headers as nodemailer wrote them.
    expect(raw).toMatch(/^To: ann@example\.com\r$/m);
    expect(raw).toMatch(/^Content-Type: text\/plain; charset=utf-8\r$/m);
  });

  it('a text 7bit cannot carry (non-ASCII, or a line over 998) stays quoted-printable', async () => {
    for (const text of [`Olá,\n\n${longLink}\n`, `${'x'.repeat(999)}\n`]) {
      const built = await build(text);
      expect(withPlainTextBody(built, text)).toBe(built);
    }
  });

  it('OutboxMailer writes the file that way', async () => {
    const text = `Open this:\n${longLink}\n`;
    await new OutboxMailer(dir, 'Pass <no-reply@example.org>').send({ to: 'ann@example.com', subject: 'Hi', text });
    const [file] = readdirSync(dir);
    const raw = readFileSync(join(dir, file!), 'latin1');
    expect(raw.split('\r\n')).toContain(longLink);
    expect(raw).not.toMatch(/[^\r]\n/);
  });
});
