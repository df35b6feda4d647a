import { createHmac } from 'node:crypto';
import { normalizeEmail } from './rules/members';
import type { StreamCategory } from './stream-events';

/** Stream names (docs/architecture.md, "Command side"). Node-only: `web/` must not import this module. */
export const streams = {
  user: (userId: string) => `user-${userId}`,
  admin: (adminId: string) => `admin-${adminId}`,
  passesPool: 'passes-pool',
  site: 'site',
} as const;

/** Names the stream that reserves an e-mail for one account (appended with expected revision `no_stream`). */
export type EmailStreamNamer = (email: string) => string;

/**
 * E-mail streams of one installation: `email-<HMAC-SHA-256(key, normalised address), base64url>`.
 * Keyed with the installation's own secret (kept in its key store, docs/architecture.md,
 * "Personal data"), so a dictionary of addresses cannot name a member's stream, and the name does
 * not say which address holds it.
 */
export function emailStreams(key: Uint8Array): EmailStreamNamer {
  return (email) => `email-${createHmac('sha256', key).update(normalizeEmail(email)).digest('base64url')}`;
}

/**
 * Stores written before keyed names hold `email-<hex SHA-256 of the address>`; a keyed name is
 * 43 base64url characters, never 64 hex ones, so the two cannot be mistaken for each other.
 */
export function isUnkeyedEmailStream(streamId: string): boolean {
  return /^email-[0-9a-f]{64}$/.test(streamId);
}

export type { StreamCategory } from './stream-events';

export function streamCategory(streamId: string): StreamCategory | undefined {
  if (streamId === streams.passesPool) return 'passes-pool';
  if (streamId === streams.site) return 'site';
  const dash = streamId.indexOf('-');
  const prefix = dash > 0 ? streamId.slice(0, dash) : '';
  return prefix === 'user' || prefix === 'email' || prefix === 'admin' ? prefix : undefined;
}
