import { createHash } from 'node:crypto';
import { ADMIN_MESSAGES, DomainError, isDomainError, normalizeEmail, streams, type AdminView, type CommandContext } from '@pass/events';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../sessions/passwords';
import { adminDecider } from './decider';

/** Admin ids derive from the e-mail, so bootstrapping is idempotent and login needs no lookup table. */
export function adminIdFor(email: string): string {
  return createHash('sha256').update(`admin:${normalizeEmail(email)}`).digest('hex').slice(0, 24);
}

export const ADMIN_WRONG_CREDENTIALS = ADMIN_MESSAGES.wrongCredentials;

/**
 * Registers the admin of the settings (ADMIN_EMAIL / ADMIN_PASSWORD) unless already there. The
 * password of an existing admin is not changed from settings (there is no event for it yet).
 */
export async function bootstrapAdmin(
  deps: { handler: CommandHandler; clock: Clock; logger: Logger },
  admin: { email: string; password: string },
): Promise<string> {
  const email = normalizeEmail(admin.email);
  const adminId = adminIdFor(email);
  const { state } = await deps.handler.load(adminDecider, streams.admin(adminId));
  if (state.exists) {
    if (!(await verifyPassword(state.passwordHash, admin.password))) {
      deps.logger.warn({ adminId }, 'ADMIN_PASSWORD differs from the registered admin password; the registered one stays in force');
    }
    return adminId;
  }
  const now = deps.clock();
  const ctx: CommandContext = { correlationId: `bootstrap-admin-${adminId}`, causationId: 'settings', actor: { type: 'system', id: 'bootstrap' }, now };
  try {
    await deps.handler.handle(adminDecider, streams.admin(adminId), { type: 'RegisterAdmin', data: { adminId, email, passwordHash: await hashPassword(admin.password) }, now }, ctx);
    deps.logger.info({ adminId }, 'admin registered from settings');
  } catch (error) {
    // Another process bootstrapped it at the same moment.
    if (!isDomainError(error, 'already_exists')) throw error;
  }
  return adminId;
}

export async function checkAdminCredentials(handler: CommandHandler, email: string, password: string): Promise<AdminView> {
  const adminId = adminIdFor(email);
  const { state } = await handler.load(adminDecider, streams.admin(adminId));
  if (!state.exists) {
    await burnPasswordCheck(password);
    throw new DomainError('unauthorized', ADMIN_WRONG_CREDENTIALS);
  }
  if (!(await verifyPassword(state.passwordHash, password))) throw new DomainError('unauthorized', ADMIN_WRONG_CREDENTIALS);
  return { id: adminId, email: state.email, authorized: true };
}

export async function adminView(handler: CommandHandler, adminId: string, authorized: boolean): Promise<AdminView> {
  if (!authorized) return { id: adminId, email: '', authorized: false };
  const { state } = await handler.load(adminDecider, streams.admin(adminId));
  return { id: adminId, email: state.email, authorized: state.exists };
}
