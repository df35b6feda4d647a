import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  commandApiRequires,
  imageWorkerRequires,
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

  it('reads the social links in the about page\'s order, leaving out unset and empty ones, https only', () => {
    expect(parseSettings({}).socialLinks).toEqual([]);
    expect(parseSettings({ SOCIAL_YOUTUBE_URL: 'https://youtube.com/@pass', SOCIAL_X_URL: '', SOCIAL_INSTAGRAM_URL: 'https://instagram.com/pass' }).socialLinks).toEqual([
      { network: 'instagram', url: 'https://instagram.com/pass' },
      { network: 'youtube', url: 'https://youtube.com/@pass' },
    ]);
    expect(() => parseSettings({ SOCIAL_X_URL: 'http://x.com/pass' })).toThrowError(/^Invalid setting SOCIAL_X_URL: expected an https:\/\/ URL/);
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
    expect(parseSettings({}).readyMaxHeartbeatSeconds).toBe(10);
    expect(parseSettings({ READY_MAX_HEARTBEAT_SECONDS: '3' }).readyMaxHeartbeatSeconds).toBe(3);
    expect(() => parseSettings({ READY_MAX_HEARTBEAT_SECONDS: '0' })).toThrowError(/^Invalid setting READY_MAX_HEARTBEAT_SECONDS/);
  });

  it('parses the read models\' Redis Cluster nodes', () => {
    expect(parseSettings({}).redisClusterNodes).toBeUndefined();
    expect(parseSettings({ REDIS_CLUSTER_NODES: 'redis-1:7000, 10.0.0.2:7001' }).redisClusterNodes).toEqual([
      { host: 'redis-1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(() => parseSettings({ REDIS_CLUSTER_NODES: 'redis://redis-1:7000' })).toThrowError(/^Invalid setting REDIS_CLUSTER_NODES: expected host:port/);
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

  it('holds command-api in production to a session secret, PayPal, its credentials, its webhook id and a mail server', () => {
    const cases: [Record<string, string>, string | null][] = [
      [{ ...production, ...paypal }, 'Invalid setting SESSION_SECRET: is required by the command-api service'],
      [{ ...production, SESSION_SECRET: 'x'.repeat(32) }, 'Invalid setting PAYMENTS_PROVIDER: the simulated (test mode) provider is refused when NODE_ENV=production; set paypal (the command-api service)'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32), PAYPAL_CLIENT_SECRET: '' }, 'Invalid setting PAYPAL_CLIENT_SECRET: is required by the command-api service when PAYMENTS_PROVIDER=paypal'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32), PAYPAL_WEBHOOK_ID: '' }, 'Invalid setting PAYPAL_WEBHOOK_ID: is required by the command-api service with PayPal when NODE_ENV=production'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32) }, 'Invalid setting SMTP_URL: is required by the command-api service when NODE_ENV=production'],
      [{ ...production, ...paypal, SESSION_SECRET: 'x'.repeat(32), SMTP_URL: 'smtp://mail.example:587' }, null],
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
    SMTP_URL: 'smtp://mailer:pw@mail.example.org:587',
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
  const lists = {
    'command-api-1': commandApiRequires,
    'command-api-2': commandApiRequires,
    'image-worker': imageWorkerRequires,
    'projector-1': projectorRequires,
    'projector-2': projectorRequires,
    'query-api-1': queryApiRequires,
    'query-api-2': queryApiRequires,
    'node-proxy': proxyRequires,
  };
  const roles = {
    'command-api-1': 'command-api',
    'command-api-2': 'command-api',
    'image-worker': 'image-worker',
    'projector-1': 'projector',
    'projector-2': 'projector',
    'query-api-1': 'query-api',
    'query-api-2': 'query-api',
    'node-proxy': 'proxy',
  } as const;
  const reads = (service: keyof typeof roles) => serviceVariables[roles[service]];

  it.each(Object.keys(lists))('gives %s what it requires in production, and only variables it reads', (service) => {
    const env = envOf(service);
    const settings = parseSettings(env);
    expect(settings.nodeEnv).toBe('production');
    requireSettings(settings, service, lists[service as keyof typeof lists]);
    expect(Object.keys(env).filter((k) => !reads(service as keyof typeof roles).includes(k))).toEqual([]);
  });

  it('keeps the session secret and PayPal credentials away from the projector, the image worker and the proxy', () => {
    for (const service of ['projector-1', 'projector-2', 'image-worker', 'node-proxy']) {
      expect(Object.keys(envOf(service)).filter((k) => /SECRET|PAYPAL|PAYMENTS/.test(k))).toEqual([]);
    }
  });

  it('allows the public origin for cookie-authenticated writes, and the operator\'s list beside it', () => {
    for (const service of ['command-api-1', 'query-api-1']) {
      expect(parseSettings(envOf(service)).allowedOrigins).toEqual(['https://example.org']);
      expect(parseSettings(envOf(service, { ...operator, ALLOWED_ORIGINS: 'https://a.example,https://b.example' })).allowedOrigins).toEqual([
        'https://a.example',
        'https://b.example',
        'https://example.org',
      ]);
    }
  });

  it('starts behind another TLS terminator (SITE_ADDRESS=":80"): no origin is made up from a host-less address', () => {
    for (const service of ['command-api-1', 'query-api-1']) {
      const settings = parseSettings(envOf(service, { ...operator, SITE_ADDRESS: ':80' }));
      requireSettings(settings, service, lists[service as keyof typeof lists]);
      expect(settings.allowedOrigins).toEqual([]);
      expect(parseSettings(envOf(service, { ...operator, SITE_ADDRESS: ':80', ALLOWED_ORIGINS: 'https://pass.example' })).allowedOrigins).toEqual(['https://pass.example']);
    }
  });

  it('runs two interchangeable command-apis and two projectors, each projector under its own name', () => {
    const services = compose.services as Record<string, { command?: string[]; healthcheck?: unknown }>;
    const running = (entry: string) => Object.keys(services).filter((name) => services[name]!.command?.includes(`infra/src/services/${entry}.ts`)).sort();
    expect(running('command-api')).toEqual(['command-api-1', 'command-api-2']);
    expect(running('projector')).toEqual(['projector-1', 'projector-2']);
    expect(envOf('command-api-2')).toEqual(envOf('command-api-1'));
    // A hot/standby pair: the same process and settings; the lease names its holder by PROJECTOR_INSTANCE.
    const { PROJECTOR_INSTANCE: first, ...one } = envOf('projector-1');
    const { PROJECTOR_INSTANCE: second, ...other } = envOf('projector-2');
    expect([first, second]).toEqual(['projector-1', 'projector-2']);
    expect(other).toEqual(one);
    expect(services['projector-2']!.command).toEqual(services['projector-1']!.command);
    expect(services['projector-2']!.healthcheck).toEqual(services['projector-1']!.healthcheck);
  });

  it('sends commands to every command-api through Caddy, and names no single one anywhere', () => {
    const commandApis = ['command-api-1', 'command-api-2'].map((c) => `${c}:${envOf(c).PORT}`);
    expect(envOf('proxy').COMMAND_API_UPSTREAMS!.split(/\s+/).sort()).toEqual(commandApis);
    // query-api's socket gateway and the Node proxy take one URL: Caddy's internal command front.
    const caddyfile = readFileSync(resolve(import.meta.dirname, '../../deploy/Caddyfile'), 'utf8');
    const front = /^\{\$COMMAND_FRONT_ADDRESS:http:\/\/:(\d+)\} \{$/m.exec(caddyfile);
    expect(front, 'the Caddyfile has the internal command front').not.toBeNull();
    for (const service of ['query-api-1', 'query-api-2', 'node-proxy']) expect(envOf(service).COMMAND_API_URL, service).toBe(`http://proxy:${front![1]}`);
    const depends = compose.services as Record<string, { depends_on?: string[] | Record<string, unknown> }>;
    for (const [name, { depends_on: on }] of Object.entries(depends)) {
      const names = Array.isArray(on) ? on : Object.keys(on ?? {});
      if (names.some((n) => n.startsWith('command-api'))) expect(names.filter((n) => n.startsWith('command-api')).sort(), name).toEqual(['command-api-1', 'command-api-2']);
    }
  });

  it('runs Redis as BullMQ requires: no eviction, append-only file', () => {
    const redis = (compose.services as Record<string, { command?: string[] }>).redis!.command!.join(' ');
    expect(redis).toMatch(/--maxmemory-policy noeviction/);
    expect(redis).toMatch(/--appendonly yes/);
  });

  it('runs Prometheus and Grafana only in the observability profile, on files the repository holds, scraping every service', () => {
    const services = compose.services as Record<string, { profiles?: string[]; volumes?: string[] }>;
    for (const name of ['prometheus', 'grafana']) {
      expect(services[name]!.profiles).toEqual(['observability']);
      for (const mount of services[name]!.volumes!.filter((v) => v.startsWith('./'))) {
        expect(existsSync(resolve(import.meta.dirname, '../../deploy', mount.split(':')[0]!)), mount).toBe(true);
      }
    }
    const prometheus = parseYaml(readFileSync(resolve(import.meta.dirname, '../../deploy/observability/prometheus.yml'), 'utf8')) as {
      scrape_configs: { static_configs: { targets: string[] }[] }[];
    };
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets));
    const port = (env: Record<string, string>) => env.PORT ?? env.PROJECTOR_PORT ?? env.IMAGE_WORKER_PORT;
    for (const service of Object.keys(lists)) if (service !== 'node-proxy') expect(targets).toContain(`${service}:${port(envOf(service))}`);
  });

  it('refuses to start without the operator\'s secrets', () => {
    expect(() => envOf('command-api-1', { ...operator, PAYPAL_WEBHOOK_ID: '' })).toThrowError(/^PAYPAL_WEBHOOK_ID: set PAYPAL_WEBHOOK_ID/);
    expect(() => envOf('query-api-1', { ...operator, SESSION_SECRET: '' })).toThrowError(/^SESSION_SECRET: set SESSION_SECRET/);
    expect(() => envOf('command-api-2', { ...operator, SMTP_URL: '' })).toThrowError(/^SMTP_URL: set SMTP_URL/);
    expect(() => envOf('projector-1', {})).not.toThrow();
  });
});
