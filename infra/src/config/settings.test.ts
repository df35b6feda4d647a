import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { projectorRequires, proxyRequires, queryApiRequires } from '../services/requirements';
import { parseSettings, requireSettings, SettingsError } from './settings';

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

  it('parses the distributed settings', () => {
    const s = parseSettings({ COMMAND_API_URL: 'http://command-api:3001/', QUERY_API_URLS: 'http://q1:3000, http://q2:3000', PROJECTOR_PORT: '9000' });
    expect(s.commandApiUrl).toBe('http://command-api:3001');
    expect(s.queryApiUrls).toEqual(['http://q1:3000', 'http://q2:3000']);
    expect(s.projectorPort).toBe(9000);
    expect(s.redisPrefix).toBe('pass:');
    expect(s.trustProxy).toBe('loopback');
    expect(() => parseSettings({ COMMAND_API_URL: 'command-api:3001' })).toThrowError(/^Invalid setting COMMAND_API_URL: expected an http\(s\):\/\/ URL/);
    expect(() => parseSettings({ QUERY_API_URLS: 'http://q1:3000,ftp://q2' })).toThrowError(/^Invalid setting QUERY_API_URLS/);
    expect(() => parseSettings({ REDIS_PREFIX: 'has space' })).toThrowError(/^Invalid setting REDIS_PREFIX/);
  });

  it('lets each service name what it cannot run without', () => {
    const standalone = parseSettings({});
    expect(() => requireSettings(standalone, 'query-api', queryApiRequires)).toThrowError('Invalid setting EVENT_STORE_URL: expected postgres://… or esdb://… (PGlite cannot be shared between processes) (the query-api service)');
    const shared = parseSettings({ EVENT_STORE_URL: 'postgres://x@db/test' });
    expect(() => requireSettings(shared, 'projector', projectorRequires)).toThrowError('Invalid setting REDIS_URL: is required by the projector service');
    const full = parseSettings({ EVENT_STORE_URL: 'esdb://db:2113?tls=false', REDIS_URL: 'redis://r:6379', SESSION_SECRET: 'x'.repeat(32), COMMAND_API_URL: 'http://c:3001' });
    expect(() => requireSettings(full, 'query-api', queryApiRequires)).not.toThrow();
    expect(() => requireSettings(full, 'proxy', proxyRequires)).toThrowError('Invalid setting QUERY_API_URLS: is required by the proxy service');
  });
});
