import { assertNever, type GlobalPostView } from '@pass/events';
import { GLOBAL_POSTS_LIMIT } from '../read-models/types';
import { projection } from './projection';

/**
 * The newest global posts, one per member, newest first: a posted or updated certificate puts
 * the member's card on top (the new-member popup shows the head). Deleting a member's post
 * removes it, so the popup falls back to the previous post.
 */
export const globalPosts = projection({
  handles: ['CertificatePosted', 'CertificateUpdated', 'MemberPostDeleted', 'MemberErased', 'PriorityChanged'],
  evolve(copy, event) {
    switch (event.type) {
      case 'CertificatePosted':
      case 'CertificateUpdated': {
        const d = event.data;
        const post: GlobalPostView = {
          user: { id: d.userId, fullname: d.fullname, country: d.country, image: d.image, priority: copy.row(d.userId)?.priority ?? '' },
          message: d.message,
          postedAt: event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt,
        };
        copy.posts = [post, ...copy.posts.filter((p) => p.user.id !== d.userId)].slice(0, GLOBAL_POSTS_LIMIT);
        copy.live.push({ kind: event.type === 'CertificatePosted' ? 'globalMember' : 'globalMessage', post });
        return;
      }
      case 'MemberPostDeleted':
      case 'MemberErased': {
        const rest = copy.posts.filter((p) => p.user.id !== event.data.userId);
        if (rest.length !== copy.posts.length) copy.posts = rest;
        return;
      }
      case 'PriorityChanged': {
        // The card shows the member's style; keep it current.
        const { userId, priority } = event.data;
        if (copy.posts.some((p) => p.user.id === userId)) {
          copy.posts = copy.posts.map((p) => (p.user.id === userId ? { ...p, user: { ...p.user, priority } } : p));
        }
        return;
      }
      default:
        assertNever(event);
    }
  },
  writes(copy, out) {
    if (copy.posts !== copy.stored.posts) out.push({ op: 'posts', posts: copy.posts });
  },
});
