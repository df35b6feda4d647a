import { describe, expect, it } from 'vitest';
import { streamCategory, streams } from './streams';

describe('stream names', () => {
  it('names user and admin streams by id, and the two singletons', () => {
    expect(streams.user('3f2a')).toBe('user-3f2a');
    expect(streams.admin('a1')).toBe('admin-a1');
    expect(streams.passesPool).toBe('passes-pool');
    expect(streams.site).toBe('site');
  });

  it('reserves one e-mail stream whatever the case or surrounding spaces', () => {
    const id = streams.email('ann@example.com');
    expect(streams.email('Ann@Example.COM')).toBe(id);
    expect(streams.email('  ann@example.com\t')).toBe(id);
    expect(streams.email('ANN@EXAMPLE.COM ')).toBe(id);
  });

  it('gives different e-mails different streams', () => {
    expect(streams.email('ann@example.com')).not.toBe(streams.email('ann@example.co'));
    expect(streams.email('ann@example.com')).not.toBe(streams.email('an.n@example.com'));
  });

  it('does not leak the e-mail into the stream name (it is visible in $all, logs and ops views)', () => {
    const id = streams.email('Ann.Smith@Example.com');
    expect(id).toMatch(/^email-[0-9a-f]{64}$/);
    expect(id.toLowerCase()).not.toContain('ann');
    expect(id.toLowerCase()).not.toContain('example');
  });
});

describe('streamCategory', () => {
  it.each([
    ['user-3f2a', 'user'],
    ['user-with-dashes-in-id', 'user'],
    [streams.email('ann@example.com'), 'email'],
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
