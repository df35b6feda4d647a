import type { GlobalPostView } from '@pass/events/kernel';
import { CloseIcon } from '../../components/Icons';

export interface NewMemberPopupProps {
  post: GlobalPostView;
  onClose: () => void;
}

/** The newest global post; hides after 10 s (saga) or on X. */
export function NewMemberPopup({ post, onClose }: NewMemberPopupProps) {
  return (
    <div className="new-member" role="status" aria-live="polite">
      {post.user.image && <img src={post.user.image.url} alt={post.user.fullname} width={56} height={56} />}
      <div>
        <strong>{post.user.fullname || 'A new member'} says:</strong>
        <p>{post.message}</p>
      </div>
      <button type="button" className="icon-button" aria-label="Close new member message" onClick={onClose}>
        <CloseIcon size={16} />
      </button>
    </div>
  );
}
