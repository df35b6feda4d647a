import type { UserView } from '@pass/events';
import type { UserState } from './state';

/** The spec's user model (§3) of a member's state. `chatCount` is the points. */
export function toUserView(s: UserState): UserView {
  const c = s.certificate;
  return {
    id: s.userId,
    email: s.email,
    priority: s.priority,
    chatCount: s.points,
    downloads: 0,
    fullname: c?.fullname ?? '',
    country: c?.country ?? '',
    link: c?.link ?? '',
    image: c?.image ?? null,
    message: c?.message ?? '',
    passes: s.passes,
    buyed: s.buyedUsd,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
