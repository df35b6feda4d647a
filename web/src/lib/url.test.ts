import { describe, expect, it } from 'vitest';
import { isHttpLink } from './url';

describe('isHttpLink', () => {
  it('accepts http(s) only', () => {
    expect(isHttpLink('https://example.com')).toBe(true);
    expect(isHttpLink('http://example.com/x')).toBe(true);
    expect(isHttpLink('javascript:alert(1)')).toBe(false);
    expect(isHttpLink('example.com')).toBe(false);
  });
});
