import { afterEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { eventSchemaVersions } from './domain-events';
import { UnknownEventError, toCurrentEvent, toDomainEvent, UPCAST_METADATA_KEYS, upcasters, type UpcasterRegistry } from './upcasters';

const at = '2026-01-02T03:04:05.000Z';
const registered = {
  userId: 'u-1',
  email: 'ann@example.com',
  passwordHash: '$argon2id$hash',
  points: 10,
  priority: '',
  registeredAt: at,
};

describe('toDomainEvent', () => {
  it('returns a current-version event with its validated data', () => {
    expect(toDomainEvent('UserRegistered', registered, 1)).toEqual({ type: 'UserRegistered', data: registered });
    expect(toDomainEvent('ChatCleared', { clearedBy: 'admin-1', clearedAt: at })).toEqual({
      type: 'ChatCleared',
      data: { clearedBy: 'admin-1', clearedAt: at },
    });
  });

  it('drops fields the schema does not know, so projections only see the declared shape', () => {
    const event = toDomainEvent('FreePointAwarded', { userId: 'u-1', points: 1, awardedAt: at, injected: '<script>' });
    expect(event.data).toEqual({ userId: 'u-1', points: 1, awardedAt: at });
  });

  it('rejects an unknown event type, naming it', () => {
    const error = (() => {
      try {
        toDomainEvent('UserTeleported', {});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnknownEventError);
    expect(error).toMatchObject({ name: 'UnknownEventError', eventType: 'UserTeleported' });
    expect((error as Error).message).toBe('Unknown event type "UserTeleported"');
    // Not fooled by properties every object has.
    expect(() => toDomainEvent('toString', {})).toThrow(UnknownEventError);
    expect(() => toDomainEvent('__proto__', {})).toThrow(UnknownEventError);
  });

  it.each([
    ['a missing field', { ...registered, email: undefined }],
    ['a wrong type', { ...registered, points: '10' }],
    ['a fractional point count', { ...registered, points: 1.5 }],
    ['an unknown priority', { ...registered, priority: 'vip' }],
    ['a date that is not ISO-8601', { ...registered, registeredAt: '02/01/2026' }],
    ['no data at all', null],
  ])('rejects invalid data: %s', (_label, data) => {
    expect(() => toDomainEvent('UserRegistered', data)).toThrow(ZodError);
  });

  it('rejects values the schema bounds refuse', () => {
    expect(() => toDomainEvent('FreePointAwarded', { userId: 'u-1', points: 0, awardedAt: at })).toThrow(ZodError);
    expect(() => toDomainEvent('PassSupplySet', { available: -1, setBy: 'admin-1', setAt: at })).toThrow(ZodError);
  });

  it('has an upcaster for every step from version 1 to each current version', () => {
    // A version bump without its upcaster would make every older stored event unreadable.
    for (const [type, version] of Object.entries(eventSchemaVersions)) {
      for (let v = 1; v < version; v++) {
        expect(upcasters[type as keyof typeof upcasters]?.[v], `${type} v${v} -> v${v + 1}`).toBeTypeOf('function');
      }
    }
  });
});

describe('toDomainEvent with upcasters', () => {
  // Pretend ChatMessageSent is at version 3: v1 had `text` instead of `message`, v2 had no
  // `pointsSpent` (chat was free). The registry is the test's own, passed in.
  const original = eventSchemaVersions.ChatMessageSent;
  afterEach(() => {
    eventSchemaVersions.ChatMessageSent = original;
  });

  const registry: UpcasterRegistry = {
    ChatMessageSent: {
      1: (data) => {
        const { text, ...rest } = data as { text: string };
        return { ...rest, message: text };
      },
      2: (data) => ({ ...(data as object), pointsSpent: 0 }),
    },
  };
  const v1 = { userId: 'u-1', messageId: 'm-1', nickname: 'Ann', text: 'hello', priority: '', sentAt: at };
  const current = { userId: 'u-1', messageId: 'm-1', nickname: 'Ann', message: 'hello', priority: '', sentAt: at, pointsSpent: 0 };

  it('upcasts an old version step by step to the current shape', () => {
    eventSchemaVersions.ChatMessageSent = 3;
    expect(toDomainEvent('ChatMessageSent', v1, 1, registry)).toEqual({ type: 'ChatMessageSent', data: current });
    const { text: _text, ...v2 } = { ...v1, message: 'hello' };
    expect(toDomainEvent('ChatMessageSent', v2, 2, registry)).toEqual({ type: 'ChatMessageSent', data: current });
  });

  it('applies no upcaster to an event already at the current version', () => {
    eventSchemaVersions.ChatMessageSent = 3;
    expect(toDomainEvent('ChatMessageSent', current, 3, registry).data).toEqual(current);
  });

  it('fails loudly when a step of the chain is missing', () => {
    eventSchemaVersions.ChatMessageSent = 3;
    const gap: UpcasterRegistry = { ChatMessageSent: { 1: registry.ChatMessageSent![1]! } };
    expect(() => toDomainEvent('ChatMessageSent', v1, 1, gap)).toThrow('No upcaster for ChatMessageSent v2 -> v3');
    expect(() => toDomainEvent('ChatMessageSent', v1, 1, {})).toThrow('No upcaster for ChatMessageSent v1 -> v2');
  });

  it('validates the upcast result, so a faulty upcaster cannot let bad data through', () => {
    eventSchemaVersions.ChatMessageSent = 2;
    const faulty: UpcasterRegistry = { ChatMessageSent: { 1: (data) => data } };
    expect(() => toDomainEvent('ChatMessageSent', v1, 1, faulty)).toThrow(ZodError);
  });
});

describe('cards recorded before the server took only listed countries', () => {
  const card = { userId: 'u-1', fullname: 'Ann', email: 'ann@example.com', link: 'https://example.com/ann', image: { path: 'a.webp', public_id: 'a', url: '/uploads/a.webp' }, message: 'Hello all' };
  const read = (type: 'CertificatePosted' | 'CertificateUpdated', country: string, schemaVersion: number) =>
    toCurrentEvent({ type, data: { ...card, country, ...(type === 'CertificatePosted' ? { postedAt: at } : { updatedAt: at }) }, metadata: { schemaVersion } }).data;

  it('read a country off the list as none (any text, any length), and a listed one as it is', () => {
    for (const type of ['CertificatePosted', 'CertificateUpdated'] as const) {
      expect(eventSchemaVersions[type]).toBe(2);
      for (const typed of ['Narnia', 'N'.repeat(4_000), 'spain', '<b>Spain</b>', '']) expect(read(type, typed, 1), typed.slice(0, 20)).toMatchObject({ country: '' });
      expect(read(type, 'Spain', 1)).toEqual(expect.objectContaining({ ...card, country: 'Spain' }));
      // Without a version in its metadata an event is version 1.
      expect(toCurrentEvent({ type, data: { ...card, country: 'Narnia', postedAt: at, updatedAt: at }, metadata: {} }).data).toMatchObject({ country: '' });
    }
  });

  it('read a version 2 card as recorded (the server checked its country)', () => {
    expect(read('CertificatePosted', 'Peru', 2)).toMatchObject({ country: 'Peru' });
    expect(read('CertificateUpdated', '', 2)).toMatchObject({ country: '' });
  });
});

describe('toCurrentEvent', () => {
  it('reads no metadata key but UPCAST_METADATA_KEYS (what the projector asks the store for)', () => {
    const read = new Set<string>();
    const metadata = new Proxy({ schemaVersion: 1, actor: { type: 'user', id: 'u-1' }, correlationId: 'c-1' } as Record<string, unknown>, {
      get: (target, key) => (typeof key === 'string' && read.add(key), target[key as string]),
    });
    expect(toCurrentEvent({ type: 'UserRegistered', data: registered, metadata })).toEqual({ type: 'UserRegistered', data: registered });
    expect([...read].filter((key) => !UPCAST_METADATA_KEYS.includes(key))).toEqual([]);
    expect(UPCAST_METADATA_KEYS).toContain('schemaVersion');
  });

  it('an event whose metadata kept only those keys reads as with all of it, its version included', () => {
    const upcasting: UpcasterRegistry = { UserRegistered: { 1: (data) => ({ ...(data as object), priority: 'specialUser' }) } };
    const versions = eventSchemaVersions as Record<string, number>;
    const current = versions.UserRegistered!;
    versions.UserRegistered = 2;
    try {
      // Stored at version 2: read as version 1 (its version lost), it would be upcast again.
      const full = { type: 'UserRegistered', data: registered, metadata: { schemaVersion: 2, correlationId: 'c-1' } };
      const slim = { ...full, metadata: Object.fromEntries(UPCAST_METADATA_KEYS.map((key) => [key, full.metadata[key as keyof typeof full.metadata]])) };
      expect(toCurrentEvent(slim, upcasting)).toEqual(toCurrentEvent(full, upcasting));
      expect(toCurrentEvent(slim, upcasting).data).toMatchObject({ priority: '' });
      expect(toCurrentEvent({ ...full, metadata: {} }, upcasting).data).toMatchObject({ priority: 'specialUser' });
    } finally {
      versions.UserRegistered = current;
    }
  });
});
