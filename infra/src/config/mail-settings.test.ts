import { describe, expect, it } from 'vitest';
import { parseSettings } from './settings';

describe('mail settings (SMTP_URL, MAIL_FROM) and the address links are built on', () => {
  it("defaults to no SMTP (the outbox), From no-reply@ the site's host, links on SITE_ADDRESS's origin", () => {
    const s = parseSettings({ SITE_ADDRESS: 'pass.example.org' });
    expect(s.smtpUrl).toBeUndefined();
    expect(s.siteUrl).toBe('https://pass.example.org');
    expect(s.mailFrom).toBe('Pass <no-reply@pass.example.org>');
  });

  it('falls back to the first ALLOWED_ORIGINS, then to this process on localhost', () => {
    expect(parseSettings({ SITE_ADDRESS: ':80', ALLOWED_ORIGINS: 'https://a.example/,https://b.example' }).siteUrl).toBe('https://a.example');
    expect(parseSettings({ PORT: '8080' }).siteUrl).toBe('http://localhost:8080');
  });

  it('takes smtp:// and smtps:// URLs and a From of its own', () => {
    const s = parseSettings({ SMTP_URL: 'smtps://user:pw@mail.example:465', MAIL_FROM: 'Pass <hello@example.org>' });
    expect(s.smtpUrl).toBe('smtps://user:pw@mail.example:465');
    expect(s.mailFrom).toBe('Pass <hello@example.org>');
  });

  it('refuses another scheme in one line, without printing the URL (it holds the password)', () => {
    expect(() => parseSettings({ SMTP_URL: 'http://user:secret@mail.example' })).toThrow(/^Invalid setting SMTP_URL: expected smtp:\/\/user:pass@host:port or smtps:\/\/… \(value hidden\)$/);
  });
});
