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
        const data = event.data;
        const post: GlobalPostView = {
          user: { id: data.userId, fullname: data.fullname, country: data.country, image: data.image, priority: copy.row(data.userId)?.priority ?? '' },
          message: data.message,
          postedAt: event.type === 'CertificatePosted' ? event.data.postedAt : event.data.updatedAt,
        };
        copy.posts = [post, ...copy.posts.filter((older) => older.user.id !== data.userId)].slice(0, GLOBAL_POSTS_LIMIT);
        copy.live.push({ kind: event.type === 'CertificatePosted' ? 'globalMember' : 'globalMessage', post });
        return;
      }
      case 'MemberPostDeleted':
      case 'MemberErased': {
        const rest = copy.posts.filter((post) => post.user.id !== event.data.userId);
        if (rest.length !== copy.posts.length) copy.posts = rest;
        return;
      }
      case 'PriorityChanged': {
        // The card shows the member's style; keep it current.
        const { userId, priority } = event.data;
        if (copy.posts.some((post) => post.user.id === userId)) {
          copy.posts = copy.posts.map((post) => (post.user.id === userId ? { ...post, user: { ...post.user, priority } } : post));
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
