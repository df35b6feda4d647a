import { describe, expect, it } from 'vitest';
import { resetTokenMember } from '@pass/events';
import { ResetLinks } from './reset-links';

const links = new ResetLinks('a session secret of at least thirty-two characters');
const made = new Date('2026-05-01T09:00:00.123Z');

describe('signed reset links', () => {
  it('say who and when, with the secret in the shape links always had', () => {
    const token = links.make('member-1', made);
    expect(token).toMatch(/^member-1\.[\w-]{43}$/);
    expect(links.open(token)).toEqual({ userId: 'member-1', issuedAt: made, tokenHash: expect.stringMatching(/^[\w-]{43}$/) });
    expect(links.make('member-1', new Date(made.getTime() + 1))).not.toBe(token);
    // The page that sets the password reads the member from it with the kernel's rule.
    expect(resetTokenMember(token)).toBe('member-1');
  });

  it('refuse another member, another time, another key and any changed character', () => {
    const token = links.make('member-1', made);
    const [, secret] = token.split('.') as [string, string];
    expect(links.open(`member-2.${secret}`)).toBeUndefined();
    expect(links.open(token.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`))).toBeUndefined();
    expect(new ResetLinks('another secret, also thirty-two characters long').open(token)).toBeUndefined();
    for (let i = 0; i < secret.length; i++) {
      const changed = secret.slice(0, i) + (secret[i] === 'x' ? 'y' : 'x') + secret.slice(i + 1);
      expect(links.open(`member-1.${changed}`), `character ${i}`).toBeUndefined();
    }
    for (const malformed of ['', 'member-1', `member-1.${secret}.x`, `.${secret}`, `member-1.${secret.slice(1)}`]) expect(links.open(malformed)).toBeUndefined();
  });
});
