/**
 * Why a guest was sent to /content/join from a member-only page (docs/product.md §2, §6 guards): the page
 * that sends puts the reason in the navigation state, the join page says it in one line.
 */
export type JoinReason = 'free-points' | 'post' | 'points' | 'certificate' | 'chat' | 'my-data';

export const JOIN_REASONS: Record<JoinReason, string> = {
  'free-points': 'Free points are added to a member\'s account: join (or sign in) first, then the countdown starts.',
  post: 'Your pass is kept with your account: join (or sign in) first, then fill in your certificate.',
  points: 'Points are added to a member\'s account: join (or sign in) first, then choose a pack.',
  certificate: 'Your certificate shows the passes of your account: join (or sign in) first.',
  chat: 'Each chat message costs a point from a member\'s account: join (or sign in) first, then send your message.',
  'my-data': 'Your data is kept with your account: join (or sign in) first to download it, change your password or delete your account.',
};

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
