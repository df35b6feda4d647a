import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { streams, type CommandContext } from '@pass/events';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import { emailDecider } from '../members/email-decider';
import { requireRegistered } from '../members/state';
import { OutboxMailer, type Mailer } from '../mail/mailer';
import { CARDS_DIR } from '../uploads/card-images';

export type ErasureRequest = { requestedBy: 'member' } | { requestedBy: 'admin'; adminId: string };

/**
 * Erases a member (docs/architecture.md, "Personal data"): MemberErased on their stream, after
 * which the event store destroys their key, so every personal field of theirs reads as ''
 * everywhere, a rebuild included; then their e-mail is released (it can join again, as a new
 * member), their card image files are deleted and their sessions end. Each later step is safe to
 * repeat; an erasure cut short after the event is finished by the join (an erased member's
 * reservation is free) and the orphan sweep. Logs carry the member id only.
 */
export async function eraseMember(services: CommandServices, userId: string, request: ErasureRequest, ctx: CommandContext): Promise<void> {
  const stream = streams.user(userId);
  const { state } = await services.handler.load(userDecider, stream);
  requireRegistered(state);
  // Read while the key exists: after the event the e-mail is gone from every read.
  const email = state.email;
  await services.handler.handle(userDecider, stream, { type: 'EraseMember', data: { userId, ...request }, now: ctx.now }, ctx);
  if (email) await services.handler.handle(emailDecider, services.emailStream(email), { type: 'ReleaseEmail', data: { userId }, now: ctx.now }, ctx);
  const files = (await removeCardFiles(services.uploadsDir, userId)) + (email ? await removeOutboxMails(services.mailer, email) : 0);
  const sessions = await services.sessions.endAllOf('user', userId, undefined, 'deleted');
  await services.afterErasure?.(userId);
  services.logger.info({ userId, requestedBy: request.requestedBy, files, sessionsEnded: sessions }, 'member erased');
}

/** Every card image file named for the member (`cards/<2>/<member id>.<image id>.webp`). */
async function removeCardFiles(uploadsDir: string, userId: string): Promise<number> {
  const dir = join(uploadsDir, CARDS_DIR, userId.slice(0, 2));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const mine = names.filter((name) => name.startsWith(`${userId}.`));
  await Promise.all(mine.map((name) => rm(join(dir, name), { force: true })));
  return mine.length;
}

/** Mails to the member waiting in the outbox folder (standalone without SMTP): their address is in each. */
async function removeOutboxMails(mailer: Mailer, email: string): Promise<number> {
  if (!(mailer instanceof OutboxMailer)) return 0;
  let names: string[];
  try {
    names = (await readdir(mailer.dir)).filter((name) => name.endsWith('.eml'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const address = email.toLowerCase();
  let removed = 0;
  for (const name of names) {
    const file = join(mailer.dir, name);
    const text = await readFile(file, 'utf8').catch(() => '');
    if (!text.toLowerCase().includes(address)) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}
