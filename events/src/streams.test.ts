import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emailStreams, isUnkeyedEmailStream, streamCategory, streams } from './streams';

describe('stream names', () => {
  it('names user and admin streams by id, and the two singletons', () => {
    expect(streams.user('3f2a')).toBe('user-3f2a');
    expect(streams.admin('a1')).toBe('admin-a1');
    expect(streams.passesPool).toBe('passes-pool');
    expect(streams.site).toBe('site');
  });

  const key = Buffer.alloc(32, 7);
  const email = emailStreams(key);

  it('reserves one e-mail stream whatever the case or surrounding spaces', () => {
    const id = email('ann@example.com');
    expect(email('Ann@Example.COM')).toBe(id);
    expect(email('  ann@example.com\t')).toBe(id);
    expect(email('ANN@EXAMPLE.COM ')).toBe(id);
  });

  it('gives different e-mails different streams', () => {
    expect(email('ann@example.com')).not.toBe(email('ann@example.co'));
    expect(email('ann@example.com')).not.toBe(email('an.n@example.com'));
  });

  it('does not leak the e-mail into the stream name (it is visible in $all and ops views), nor a digest a dictionary reverses', () => {
    const id = email('Ann.Smith@Example.com');
    expect(id).toMatch(/^email-[\w-]{43}$/);
    expect(id.toLowerCase()).not.toContain('ann');
    expect(id.toLowerCase()).not.toContain('example');
    // The unkeyed SHA-256 of the address is what a dictionary of addresses computes.
    const unkeyed = createHash('sha256').update('ann.smith@example.com').digest();
    expect(id).not.toContain(unkeyed.toString('hex'));
    expect(id).not.toContain(unkeyed.toString('base64url'));
    // Another installation's key names the same address otherwise.
    expect(emailStreams(Buffer.alloc(32, 8))('Ann.Smith@Example.com')).not.toBe(id);
  });

  it('tells the unkeyed names stores held before from keyed ones', () => {
    expect(isUnkeyedEmailStream(`email-${createHash('sha256').update('ann@example.com').digest('hex')}`)).toBe(true);
    expect(isUnkeyedEmailStream(email('ann@example.com'))).toBe(false);
    expect(isUnkeyedEmailStream('user-1')).toBe(false);
  });
});

describe('streamCategory', () => {
  it.each([
    ['user-3f2a', 'user'],
    ['user-with-dashes-in-id', 'user'],
    [emailStreams(Buffer.alloc(32, 7))('ann@example.com'), 'email'],
    ['admin-a1', 'admin'],
    ['passes-pool', 'passes-pool'],
    ['site', 'site'],
  ] as const)('%s → %s', (streamId, category) => {
    expect(streamCategory(streamId)).toBe(category);
  });

  it.each(['users-1', 'user', 'userx-1', '-user-1', 'site-2', 'passes', '$all', '$$user-1', 'order-1', ''])(
    'knows nothing of %j',
    (streamId) => {
      expect(streamCategory(streamId)).toBeUndefined();
    },
  );
});
