import { isEventOf, pointTimeline, toCurrentEvent, type MyDataExport, type Principal, type RecordedEvent, type UserEvent } from '@pass/events';
import type { SessionRecord } from '../sessions/session-store';
import { fold } from '../kernel/decider';
import { userDecider } from '../members/decider';
import { requireRegistered } from '../members/state';

const isUserEvent = isEventOf('user');

/**
 * Everything the site holds about a member, from one read of their own stream (so it is
 * complete and consistent, whatever the projections' lag) and their live sessions. Pure: the
 * route reads, this shapes. Secrets stay out: no password hash, reset token hash or session id.
 */
export function myDataExport(recorded: readonly RecordedEvent[], sessions: readonly SessionRecord[], principal: Principal, siteUrl: string, now: Date): MyDataExport {
  const events: UserEvent[] = recorded.map((recordedEvent) => toCurrentEvent(recordedEvent)).filter(isUserEvent);
  const state = fold(userDecider, events);
  requireRegistered(state);
  const out: MyDataExport = {
    exportedAt: now.toISOString(),
    account: { id: state.userId, email: state.email, priority: state.priority, createdAt: state.createdAt, updatedAt: state.updatedAt, passwordChangedAt: state.passwordChangedAt },
    balance: { points: state.points, passes: state.passes, boughtUsd: state.buyedUsd },
    card: state.certificate && {
      fullname: state.certificate.fullname,
      country: state.certificate.country,
      email: state.certificate.email,
      link: state.certificate.link,
      message: state.certificate.message,
      imageUrl: new URL(state.certificate.image.url, `${siteUrl}/`).href,
      postedAt: state.certificate.postedAt,
    },
    pointHistory: pointTimeline(recorded),
    chatMessages: [],
    purchases: [],
    refunds: [],
    passes: [],
    passwordResets: [],
    sessions: sessions.map((session) => ({ createdAt: session.createdAt, lastSeenAt: session.lastSeenAt ?? null, expiresAt: session.expiresAt, current: session.id === principal.sessionId })),
  };
  for (const event of events) {
    switch (event.type) {
      case 'ChatMessageSent':
        out.chatMessages.push({ id: event.data.messageId, nickname: event.data.nickname, message: event.data.message, pointsSpent: event.data.pointsSpent, sentAt: event.data.sentAt });
        break;
      case 'PointsPurchased':
        out.purchases.push({ provider: event.data.provider, orderId: event.data.orderId, captureId: event.data.captureId, amountUsd: event.data.amountUsd, points: event.data.points, purchasedAt: event.data.purchasedAt });
        break;
      case 'PurchaseReversed':
        out.refunds.push({ captureId: event.data.captureId, reason: event.data.reason, amountUsd: event.data.amountUsd, points: event.data.points, partial: event.data.partial ?? false, reversedAt: event.data.reversedAt });
        break;
      case 'PassesClaimed':
        out.passes.push({ passes: event.data.passes, pointsSpent: event.data.pointsSpent, claimedAt: event.data.claimedAt });
        break;
      case 'PasswordResetRequested':
        out.passwordResets.push({ requestedAt: event.data.requestedAt, expiresAt: event.data.expiresAt });
        break;
      default:
        break; // the rest is in the account, the card and the point history
    }
  }
  return out;
}
