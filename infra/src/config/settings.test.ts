import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  commandApiRequires,
  projectorRequires,
  proxyRequires,
  queryApiRequires,
  serviceVariables,
  standaloneRequires,
} from '../services/requirements';
import { parseSettings, requireSettings, SettingsError, type Settings } from './settings';

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

  it('parses the readiness lag limits', () => {
    expect(parseSettings({}).readyMaxLag).toEqual({ events: 10_000, seconds: 30 });
    expect(parseSettings({ READY_MAX_LAG_EVENTS: '500', READY_MAX_LAG_SECONDS: '2.5' }).readyMaxLag).toEqual({ events: 500, seconds: 2.5 });
    expect(() => parseSettings({ READY_MAX_LAG_EVENTS: 'many' })).toThrowError(/^Invalid setting READY_MAX_LAG_EVENTS/);
    expect(() => parseSettings({ READY_MAX_LAG_SECONDS: '-1' })).toThrowError(/^Invalid setting READY_MAX_LAG_SECONDS/);
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

describe('what each process requires (services/requirements.ts)', () => {
  const production = { NODE_ENV: 'production', EVENT_STORE_URL: 'esdb://db:2113?tls=false', REDIS_URL: 'redis://r:6379' };
  const paypal = { PAYMENTS_PROVIDER: 'paypal', PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 'secret', PAYPAL_WEBHOOK_ID: 'WH-1' };
  const refusal = (settings: Settings, service: string, list: typeof projectorRequires) => {
    try {
      requireSettings(settings, service, list);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('starts the projector and the proxy in production without a session secret or payment settings', () => {
    expect(refusal(parseSettings(production), 'projector', projectorRequires)).toBeNull();
    expect(refusal(parseSettings({ NODE_ENV: 'production', COMMAND_API_URL: 'http://c:3001', QUERY_API_URLS: 'http://q:3000' }), 'proxy', proxyRequires)).toBeNull();
    // PayPal named without its credentials is not their business either.
    expect(refusal(parseSettings({ ...production, PAYMENTS_PROVIDER: 'paypal' }), 'projector', projectorRequires)).toBeNull();
  });

  it('holds command-api in production to a session secret, PayPal, its credentials and its webhook id', () => {
    const cases: [Record<string, string>, string | null][] = [
      [{ ...production, ...paypal }, 'Invalid setting SESSION_SECRET: is required by the command-api service'],
      [{ ...production, SESSION_SECRET: 'x'.repeat(32) }, 'Invalid setting PAYMENTS_PROVIDER: the simulated (test mode) provider is refused when NODE_ENV=production; set paypal (the command-api service)'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32), PAYPAL_CLIENT_SECRET: '' }, 'Invalid setting PAYPAL_CLIENT_SECRET: is required by the command-api service when PAYMENTS_PROVIDER=paypal'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32), PAYPAL_WEBHOOK_ID: '' }, 'Invalid setting PAYPAL_WEBHOOK_ID: is required by the command-api service with PayPal when NODE_ENV=production'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32) }, null],
    ];
    for (const [env, expected] of cases) expect(refusal(parseSettings(env), 'command-api', commandApiRequires)).toBe(expected);
    // In development the sandbox works without a webhook (refunds are then refused, and logged).
    expect(refusal(parseSettings({ ...production, ...paypal, NODE_ENV: 'development', SESSION_SECRET: 'x'.repeat(32), PAYPAL_WEBHOOK_ID: '' }), 'command-api', commandApiRequires)).toBeNull();
  });

  it('holds query-api to the shared session secret, not to payment credentials', () => {
    const env = { ...production, COMMAND_API_URL: 'http://c:3001', PAYMENTS_PROVIDER: 'paypal' };
    expect(refusal(parseSettings(env), 'query-api', queryApiRequires)).toBe('Invalid setting SESSION_SECRET: is required by the query-api service');
    expect(refusal(parseSettings({ ...env, SESSION_SECRET: 'x'.repeat(32) }), 'query-api', queryApiRequires)).toBeNull();
  });

  it('standalone: nothing in development; a session secret and real payments in production', () => {
    expect(refusal(parseSettings({}), 'standalone', standaloneRequires)).toBeNull();
    expect(refusal(parseSettings({ NODE_ENV: 'production', ...paypal }), 'standalone', standaloneRequires)).toBe(
      'Invalid setting SESSION_SECRET: is required by the standalone service when NODE_ENV=production',
    );
    expect(refusal(parseSettings({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) }), 'standalone', standaloneRequires)).toMatch(/^Invalid setting PAYMENTS_PROVIDER: the simulated/);
    expect(refusal(parseSettings({ PAYMENTS_PROVIDER: 'paypal' }), 'standalone', standaloneRequires)).toBe(
      'Invalid setting PAYPAL_CLIENT_ID: is required by the standalone service when PAYMENTS_PROVIDER=paypal',
    );
    expect(refusal(parseSettings({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), ...paypal }), 'standalone', standaloneRequires)).toBeNull();
  });
});

describe('infra/deploy/compose.yaml', () => {
  const compose = parseYaml(readFileSync(resolve(import.meta.dirname, '../../deploy/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string | number> }>;
  };
  /** What an operator exports before `docker compose up`. */
  const operator: Record<string, string> = {
    SESSION_SECRET: 's'.repeat(48),
    PAYPAL_CLIENT_ID: 'client',
    PAYPAL_CLIENT_SECRET: 'secret',
    PAYPAL_WEBHOOK_ID: 'WH-1',
    SITE_ADDRESS: 'example.org',
  };
  /** Compose's interpolation: ${VAR}, ${VAR:-default} (defaults may nest), ${VAR:?error}. */
  function interpolate(value: string, vars: Record<string, string>): string {
    let out = '';
    for (let i = 0; i < value.length; ) {
      if (value.startsWith('${', i)) {
        let depth = 0;
        let end = i;
        for (; end < value.length; end++) {
          if (value.startsWith('${', end)) depth++;
          else if (value[end] === '}' && --depth === 0) break;
        }
        const inner = value.slice(i + 2, end);
        const m = /^(\w+)(?::([-?])([\s\S]*))?$/.exec(inner)!;
        const [, name, op, rest] = m;
        const set = vars[name!];
        if (set) out += set;
        else if (op === '-') out += interpolate(rest ?? '', vars);
        else if (op === '?') throw new Error(`${name}: ${rest}`);
        i = end + 1;
      } else out += value[i++];
    }
    return out;
  }
  const envOf = (service: string, vars = operator) =>
    Object.fromEntries(Object.entries(compose.services[service]?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
  const lists = { 'command-api': commandApiRequires, projector: projectorRequires, 'query-api-1': queryApiRequires, 'query-api-2': queryApiRequires, 'node-proxy': proxyRequires };
  const roles = { 'command-api': 'command-api', projector: 'projector', 'query-api-1': 'query-api', 'query-api-2': 'query-api', 'node-proxy': 'proxy' } as const;

  it.each(Object.keys(lists))('gives %s what it requires in production, and only variables it reads', (service) => {
    const env = envOf(service);
    const settings = parseSettings(env);
    expect(settings.nodeEnv).toBe('production');
    requireSettings(settings, service, lists[service as keyof typeof lists]);
    expect(Object.keys(env).filter((k) => !serviceVariables[roles[service as keyof typeof roles]].includes(k))).toEqual([]);
  });

  it('keeps the session secret and PayPal credentials away from the projector and the proxy', () => {
    for (const service of ['projector', 'node-proxy']) {
      expect(Object.keys(envOf(service)).filter((k) => /SECRET|PAYPAL|PAYMENTS/.test(k))).toEqual([]);
    }
  });

  it('allows the public origin for cookie-authenticated writes (ALLOWED_ORIGINS), or the operator\'s list', () => {
    for (const service of ['command-api', 'query-api-1']) {
      expect(parseSettings(envOf(service)).allowedOrigins).toEqual(['https://example.org']);
      expect(parseSettings(envOf(service, { ...operator, ALLOWED_ORIGINS: 'https://a.example,https://b.example' })).allowedOrigins).toEqual([
        'https://a.example',
        'https://b.example',
      ]);
    }
  });

  it('refuses to start without the operator\'s secrets', () => {
    expect(() => envOf('command-api', { ...operator, PAYPAL_WEBHOOK_ID: '' })).toThrowError(/^PAYPAL_WEBHOOK_ID: set PAYPAL_WEBHOOK_ID/);
    expect(() => envOf('query-api-1', { ...operator, SESSION_SECRET: '' })).toThrowError(/^SESSION_SECRET: set SESSION_SECRET/);
    expect(() => envOf('projector', {})).not.toThrow();
  });
});
