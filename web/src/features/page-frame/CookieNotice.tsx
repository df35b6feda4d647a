import { useState } from 'react';
import { LIMITS } from '@pass/events/kernel';

export interface CookieNoticeProps {
  onAccept: () => void;
}

/** Shown until accepted; the privacy text expands and collapses (docs/product.md §1). */
export function CookieNotice({ onAccept }: CookieNoticeProps) {
  const [expanded, setExpanded] = useState(false);
  return (
    <section className="cookie-notice" aria-label="Cookie notice">
      <p>
        We use a cookie to keep you signed in. By using this site you agree to our privacy policy.{' '}
        <button type="button" className="link-button" aria-expanded={expanded} aria-controls="privacy-text"
          onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Hide privacy policy' : 'Read privacy policy'}
        </button>
      </p>
      {expanded && (
        <div id="privacy-text" className="privacy-text">
          <p>
            The data we collect are your name, e-mail, country and preferences. We do not collect your IP address or
            browser type.
          </p>
          <p>You can access, correct or delete your data at any time. Security tokens protect your data.</p>
          <p>
            Our cookie lasts {LIMITS.sessionCookieHours} hours and is assigned when you register.
          </p>
        </div>
      )}
      <button type="button" className="button primary" onClick={onAccept}>Accept</button>
    </section>
  );
}
