import { createHash } from 'node:crypto';
import { normalizeEmail } from './rules/members';
import type { StreamCategory } from './stream-events';

/** Stream names (docs/architecture.md, "Command side"). Node-only: `web/` must not import this module. */
export const streams = {
  user: (userId: string) => `user-${userId}`,
  /** Reserves an e-mail for one account; appended with expected revision `no_stream`. */
  email: (email: string) => `email-${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`,
  admin: (adminId: string) => `admin-${adminId}`,
  passesPool: 'passes-pool',
  site: 'site',
} as const;

export type { StreamCategory } from './stream-events';

export function streamCategory(streamId: string): StreamCategory | undefined {
  if (streamId === streams.passesPool) return 'passes-pool';
  if (streamId === streams.site) return 'site';
  const dash = streamId.indexOf('-');
  const prefix = dash > 0 ? streamId.slice(0, dash) : '';
  return prefix === 'user' || prefix === 'email' || prefix === 'admin' ? prefix : undefined;
}
