import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { parseSettings, SettingsError } from './settings';

describe('settings', () => {
  it('runs on embedded defaults with nothing set', () => {
    const s = parseSettings({});
    expect(s.port).toBe(3000);
    expect(s.eventStoreUrl).toBe(`pglite:${resolve('data/events')}`);
    expect(s.redisUrl).toBeUndefined();
    expect(s.payments.provider).toBe('simulated');
    expect(s.cookieSecure).toBe(false);
  });

  it('names the variable of a bad value, with what it got', () => {
    expect(() => parseSettings({ PORT: 'abc' })).toThrowError(/^Invalid setting PORT: .*\(got "abc"\)$/);
    expect(() => parseSettings({ EVENT_STORE_URL: 'mysql://x' })).toThrowError(/^Invalid setting EVENT_STORE_URL: expected pglite/);
    expect(() => parseSettings({ REDIS_URL: 'localhost:6379' })).toThrowError(/Invalid setting REDIS_URL/);
  });

  it('never echoes a secret', () => {
    try {
      parseSettings({ SESSION_SECRET: 'short-secret' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as Error).message).toBe('Invalid setting SESSION_SECRET: must be at least 32 characters (value hidden)');
    }
  });

  it('refuses the test-mode payment provider and a missing session secret in production', () => {
    expect(() => parseSettings({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) })).toThrowError(
      /Invalid setting PAYMENTS_PROVIDER: the simulated \(test mode\) provider is refused/,
    );
    expect(() => parseSettings({ NODE_ENV: 'production', PAYMENTS_PROVIDER: 'paypal', PAYPAL_CLIENT_ID: 'a', PAYPAL_CLIENT_SECRET: 'b' })).toThrowError(
      /Invalid setting SESSION_SECRET: is required when NODE_ENV=production/,
    );
  });

  it('requires PayPal credentials with the PayPal provider', () => {
    expect(() => parseSettings({ PAYMENTS_PROVIDER: 'paypal' })).toThrowError(/Invalid setting PAYPAL_CLIENT_ID/);
  });

  it('treats empty variables as unset and accepts the distributed URLs', () => {
    const s = parseSettings({ PORT: '', EVENT_STORE_URL: 'postgres://postgres@127.0.0.1:5432/test', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(s.port).toBe(3000);
    expect(s.eventStoreUrl).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(s.redisUrl).toBe('redis://127.0.0.1:6379');
  });
});
