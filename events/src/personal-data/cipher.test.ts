import { describe, expect, it } from 'vitest';
import { decryptField, encryptField, isEncrypted, newKey, PersonalDataError } from './cipher';

describe('personal field encryption', () => {
  const key = newKey();

  it('reads back what it wrote, and never writes the same bytes twice', () => {
    const a = encryptField(key, 'm1', 'UserRegistered', 'email', 'ann@example.com');
    const b = encryptField(key, 'm1', 'UserRegistered', 'email', 'ann@example.com');
    expect(isEncrypted(a)).toBe(true);
    expect(a).not.toContain('ann@example.com');
    expect(a).not.toBe(b);
    expect(decryptField(key, 'm1', 'UserRegistered', 'email', a)).toBe('ann@example.com');
    expect(decryptField(key, 'm1', 'ChatMessageSent', 'message', encryptField(key, 'm1', 'ChatMessageSent', 'message', 'héllo 😀'))).toBe('héllo 😀');
  });

  it('refuses another key, another member, type or field, and tampered bytes', () => {
    const value = encryptField(key, 'm1', 'CertificatePosted', 'fullname', 'Ann Lee');
    expect(() => decryptField(newKey(), 'm1', 'CertificatePosted', 'fullname', value)).toThrow(PersonalDataError);
    expect(() => decryptField(key, 'm2', 'CertificatePosted', 'fullname', value)).toThrow(PersonalDataError);
    expect(() => decryptField(key, 'm1', 'CertificateUpdated', 'fullname', value)).toThrow(PersonalDataError);
    expect(() => decryptField(key, 'm1', 'CertificatePosted', 'message', value)).toThrow(PersonalDataError);
    const raw = Buffer.from(value.slice(4), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptField(key, 'm1', 'CertificatePosted', 'fullname', `pd1:${raw.toString('base64')}`)).toThrow(PersonalDataError);
    expect(() => decryptField(key, 'm1', 'CertificatePosted', 'fullname', 'pd1:AAAA')).toThrow(/truncated/);
  });
});
