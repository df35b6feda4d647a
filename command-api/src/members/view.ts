import type { UserView } from '@pass/events';
import type { UserState } from './state';

/** The user model of docs/product.md §3 of a member's state. `chatCount` is the points. */
export function toUserView(state: UserState): UserView {
  const certificate = state.certificate;
  return {
    id: state.userId,
    email: state.email,
    priority: state.priority,
    chatCount: state.points,
    downloads: 0,
    fullname: certificate?.fullname ?? '',
    country: certificate?.country ?? '',
    link: certificate?.link ?? '',
    image: certificate?.image ?? null,
    message: certificate?.message ?? '',
    passes: state.passes,
    buyed: state.buyedUsd,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}
