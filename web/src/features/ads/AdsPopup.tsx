import { LIMITS } from '@pass/events/kernel';
import { formatSeconds } from '../../lib/format';
import { AdBanner } from '../../components/AdBanner';
import { CloseIcon } from '../../components/Icons';
import { Modal } from '../../components/Modal';

export interface AdsPopupProps {
  seconds: number;
  canClose: boolean;
  onClose: () => void;
}

/** Full-screen appeal with three 300×250 banners; the X (and Escape) once they loaded (docs/product.md §2). A modal dialog. */
export function AdsPopup({ seconds, canClose, onClose }: AdsPopupProps) {
  return (
    // It opens on its timer, maybe while the member types (docs/product.md §2 ads popup).
    <Modal className="ads-popup" labelledBy="ads-popup-title" onEscape={canClose ? onClose : undefined} keepTyping>
      {/* Scrolls on a phone (three banners): the keyboard must reach it to scroll it. */}
      <div className="ads-popup-inner" role="region" aria-labelledby="ads-popup-title" tabIndex={0}>
        <header>
          <h2 id="ads-popup-title">Ads keep this project alive</h2>
          {canClose && (
            <button type="button" className="icon-button" aria-label="Close ads" onClick={onClose}>
              <CloseIcon />
            </button>
          )}
        </header>
        <p>
          This is a student's fun project: every ad you see helps the owner reach the goal. Thank you for your
          support!
        </p>
        <p className="countdown" aria-live="polite" aria-label="Time left">{formatSeconds(seconds)}</p>
        <div className="ads-grid">
          {Array.from({ length: LIMITS.popupAdSlots }, (_, i) => (
            <AdBanner key={i} slot="popup" index={i + 1} />
          ))}
        </div>
      </div>
    </Modal>
  );
}

export const AD_BLOCK_TEXT =
  'Oops, it looks like your network connection is slow or your browser is using an ad blocker - please allow ads and refresh the page or try using another browser.';

export function AdBlockNotice() {
  return (
    <div className="ad-block-notice" role="alert">
      {AD_BLOCK_TEXT}
    </div>
  );
}
