import type { GlobalPostView } from '@pass/events/kernel';
import { CloseIcon } from '../../components/Icons';

export interface NewMemberPopupProps {
  post: GlobalPostView;
  onClose: () => void;
}

/**
 * The newest global post; hides after 10 s (saga), on X or on Escape. A non-modal native dialog:
 * it comes by itself to everyone whenever a member posts, so it is announced (status) and its X is
 * reachable, but it does not take the focus from what the visitor is doing (typing in the chat).
 */
export function NewMemberPopup({ post, onClose }: NewMemberPopupProps) {
  return (
    <dialog open className="new-member" aria-label="New member"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}>
      {post.user.image && <img src={post.user.image.url} alt={post.user.fullname} width={56} height={56} />}
      <div role="status" aria-live="polite">
        <strong>{post.user.fullname || 'A new member'} says:</strong>
        <p>{post.message}</p>
      </div>
      <button type="button" className="icon-button" aria-label="Close new member message" onClick={onClose}>
        <CloseIcon size={16} />
      </button>
    </dialog>
  );
}
