/**
 * Why a guest was sent to /content/join from a member-only page (docs/product.md §2, §6 guards): the page
 * that sends puts the reason in the navigation state, the join page says it in one line.
 */
import type { SignedOutReason } from '@pass/events/kernel';

/**
 * Why the member is a guest again: they signed out everywhere or deleted the account here, or their
 * session ended from elsewhere (the live connection said why). Said on the join page they land on.
 */
export type SessionEndReason = 'signed-out-everywhere' | 'account-deleted' | 'signed-out-elsewhere' | 'deleted-elsewhere' | 'password-changed-elsewhere';

export type JoinReason = 'free-points' | 'post' | 'points' | 'certificate' | 'chat' | 'my-data' | SessionEndReason;

export const JOIN_REASONS: Record<JoinReason, string> = {
  'free-points': 'Free points are added to a member\'s account: join (or sign in) first, then the countdown starts.',
  post: 'Your pass is kept with your account: join (or sign in) first, then fill in your certificate.',
  points: 'Points are added to a member\'s account: join (or sign in) first, then choose a pack.',
  certificate: 'Your certificate shows the passes of your account: join (or sign in) first.',
  chat: 'Each chat message costs a point from a member\'s account: join (or sign in) first, then send your message.',
  'my-data': 'Your data is kept with your account: join (or sign in) first to download it, change your password or delete your account.',
  'signed-out-everywhere': 'You have been signed out on every device.',
  'account-deleted': 'Your account has been deleted.',
  'signed-out-elsewhere': 'You were signed out: your account was signed out on every device. Sign in again to continue.',
  'deleted-elsewhere': 'You were signed out: your account has been deleted.',
  'password-changed-elsewhere': 'You were signed out: your password was changed. Sign in with the new one.',
};

/** The line for a session ended from elsewhere, by the live connection's reason. */
export const ENDED_ELSEWHERE: Record<SignedOutReason, SessionEndReason> = {
  everywhere: 'signed-out-elsewhere',
  deleted: 'deleted-elsewhere',
  'password-changed': 'password-changed-elsewhere',
};

const SESSION_END_REASONS = new Set<string>(['signed-out-everywhere', 'account-deleted', ...Object.values(ENDED_ELSEWHERE)]);
/** Whether a navigation state says the session ended (rather than a member-only page's reason). */
export const isSessionEndState = (state: unknown): boolean =>
  !!state && typeof state === 'object' && 'joinReason' in state && SESSION_END_REASONS.has(String((state as JoinRedirectState).joinReason));

/** The navigation state a guard sends with its redirect to /content/join. */
export interface JoinRedirectState {
  joinReason: JoinReason;
}

/** The line the join page shows for a navigation state, or null when the guest came on their own. */
export function joinReasonText(state: unknown): string | null {
  if (!state || typeof state !== 'object' || !('joinReason' in state)) return null;
  const reason = (state as JoinRedirectState).joinReason;
  return Object.hasOwn(JOIN_REASONS, reason) ? JOIN_REASONS[reason] : null;
}
