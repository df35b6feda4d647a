import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { OutboxMailer, resetMail } from '@pass/command-api';

/**
 * `npm run outbox` on a real outbox folder: a reset mail written by the site's own mailer, and an
 * older quoted-printable one (what the outbox held before its text was written as it is).
 */
const root = resolve(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(join(tmpdir(), 'outbox-cli-'));
const outbox = join(dataDir, 'outbox');
const SITE = 'https://community.example.org';
const TOKEN = '0b9c4f2e-8a51-4d7e-9f3a-2c6d1e5b7a90.Qm9vdHN0cmFwLXRva2VuLXNlY3JldC1vZi00My1jaGFyc0';
const FROM = 'Pass <no-reply@community.example.org>';

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The command as `npm run outbox` runs it, on this test's DATA_DIR. */
async function outboxCommand(...args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(root, 'infra/src/mail/outbox-cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, SMTP_URL: '' },
  });
  return stdout.split('\n');
}

describe('npm run outbox', () => {
  it('says so when there is no mail yet', async () => {
    expect((await outboxCommand()).join('\n')).toContain(`No mails in ${outbox} yet`);
  });

  it('prints the newest mails, each link decoded and whole on a line of its own', async () => {
    // An older mail, quoted-printable as nodemailer builds it (the link over 76 characters).
    const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const older = (await composer.sendMail({ from: FROM, ...resetMail('older@example.com', SITE, TOKEN.replace('0b9c', '1111')) })) as { message: Buffer };
    expect(older.message.toString()).toMatch(/quoted-printable[\s\S]*reset-pa=\r?\n|=\r?\n[\s\S]*=3D/);
    mkdirSync(outbox, { recursive: true });
    writeFileSync(join(outbox, '2020-01-01T00-00-00-000Z-000000000000.eml'), older.message);
    await new OutboxMailer(outbox, FROM).send(resetMail('ann@example.com', SITE, TOKEN));

    const lines = await outboxCommand();
    const link = `${SITE}/content/reset-password#token=${encodeURIComponent(TOKEN)}`;
    expect(lines).toContain(`  ${link}`);
    expect(lines).toContain('  Set a new password for your pass');
    expect(lines.some((line) => line.endsWith('to ann@example.com'))).toBe(true);
    // The reset page's path, its token in the fragment.
    const opened = new URL(lines.find((line) => line.includes('#token='))!.trim());
    expect(opened.pathname).toBe('/content/reset-password');
    expect(decodeURIComponent(opened.hash.slice('#token='.length))).toBe(TOKEN);
    // Newest first; the older quoted-printable one decoded too.
    const olderLink = `  ${SITE}/content/reset-password#token=${encodeURIComponent(TOKEN.replace('0b9c', '1111'))}`;
    expect(lines.indexOf(olderLink)).toBeGreaterThan(lines.indexOf(`  ${link}`));
  });

  it('prints as many mails as asked for', async () => {
    const lines = await outboxCommand('1');
    expect(lines.filter((line) => line.includes('#token='))).toHaveLength(1);
    expect(lines.some((line) => line.endsWith('to ann@example.com'))).toBe(true);
  });

  it('the mail file itself holds the link whole (7bit text, CRLF, no line over 998)', () => {
    const name = readdirSync(outbox).find((file) => !file.startsWith('2020'))!;
    const raw = readFileSync(join(outbox, name), 'latin1');
    expect(raw).toMatch(/^Content-Transfer-Encoding: 7bit\r$/m);
    expect(raw.split('\r\n')).toContain(`${SITE}/content/reset-password#token=${encodeURIComponent(TOKEN)}`);
    expect(raw).not.toMatch(/[^\r]\n/);
    expect(raw.split('\r\n').every((line) => line.length <= 998)).toBe(true);
  });
});
