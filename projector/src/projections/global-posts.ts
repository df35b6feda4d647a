import type { DomainEvent, GlobalPostView } from '@pass/events';
import { GLOBAL_POSTS_LIMIT, type UserRow } from '../read-models/types';

/**
 * The newest global posts, one per member, newest first: a posted or updated certificate puts
 * the member's card on top (the new-member popup shows the head). Deleting a member's post
 * removes it, so the popup falls back to the previous post.
 */
export function evolveGlobalPosts(
  posts: GlobalPostView[],
  event: DomainEvent,
  row: UserRow | undefined,
): { posts: GlobalPostView[]; published?: { kind: 'globalMember' | 'globalMessage'; post: GlobalPostView } } {
  switch (event.type) {
    case 'CertificatePosted':
    case 'CertificateUpdated': {
      const d = event.data;
      const post: GlobalPostView = {
        user: { id: d.userId, fullname: d.fullname, country: d.country, image: d.image, priority: row?.priority ?? '' },
        message: d.message,
        postedAt: event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt,
      };
      const rest = posts.filter((p) => p.user.id !== d.userId);
      return {
        posts: [post, ...rest].slice(0, GLOBAL_POSTS_LIMIT),
        published: { kind: event.type === 'CertificatePosted' ? 'globalMember' : 'globalMessage', post },
      };
    }
    case 'MemberPostDeleted': {
      const rest = posts.filter((p) => p.user.id !== event.data.userId);
      return { posts: rest.length === posts.length ? posts : rest };
    }
    case 'PriorityChanged': {
      // The card shows the member's style; keep it current.
      const { userId, priority } = event.data;
      if (!posts.some((p) => p.user.id === userId)) return { posts };
      return { posts: posts.map((p) => (p.user.id === userId ? { ...p, user: { ...p.user, priority } } : p)) };
    }
    default:
      return { posts };
  }
}
