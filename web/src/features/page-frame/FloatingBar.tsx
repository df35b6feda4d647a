import { Link } from 'react-router-dom';
import { contentPath } from '@pass/events/kernel';
import { DONATION_URL } from './links';
import { ChatIcon, EyeIcon, HeartIcon } from '../../components/Icons';

export interface FloatingBarProps {
  day: number;
  messagesBadge: string;
  viewersText: string;
  chatOpen: boolean;
  onChat: () => void;
}

/** Day counter (to the progress page), chat toggle, viewers badge and donation icon (docs/product.md §2). */
export function FloatingBar({ day, messagesBadge, viewersText, chatOpen, onChat }: FloatingBarProps) {
  return (
    <div className="floating-bar" role="toolbar" aria-label="Live">
      <Link to={contentPath('progress')} className="day-counter" aria-label={`Day ${day}: progress toward the goal`}>Day {day}</Link>
      <button type="button" className="chat-toggle" onClick={onChat} aria-pressed={chatOpen}
        aria-label={`${chatOpen ? 'Close' : 'Open'} chat, ${messagesBadge} messages`}>
        <ChatIcon /> <span>{messagesBadge}</span>
      </button>
      <Link to={contentPath('registered')} className="viewers" aria-label={`${viewersText} connected users`}>
        <EyeIcon /> <span>{viewersText}</span>
      </Link>
      <a href={DONATION_URL} target="_blank" rel="noopener noreferrer" aria-label="Donate" className="icon-link">
        <HeartIcon />
      </a>
    </div>
  );
}
