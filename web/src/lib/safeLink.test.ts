import { describe, expect, it } from 'vitest';
import { isSafeLink as kernelIsSafeLink } from '@pass/events/kernel';
import { isSafeLink } from './safeLink';

describe('isSafeLink (web copy of the kernel rule)', () => {
  it('answers as the kernel does', () => {
    const links = [
      'https://example.com',
      'http://example.com/x?y=1#z',
      'HTTPS://EXAMPLE.COM',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<b>x</b>',
      'ftp://example.com',
      'mailto:a@b.co',
      'example.com',
      '//example.com',
      '',
      ' https://example.com ',
      'https://',
    ];
    for (const link of links) expect(isSafeLink(link), link).toBe(kernelIsSafeLink(link));
  });
});
