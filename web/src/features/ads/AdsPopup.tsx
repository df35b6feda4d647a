import { LIMITS } from '@pass/events/kernel';
import { formatSeconds } from '../../lib/format';
import { AdBanner } from '../../components/AdBanner';
import { CloseIcon } from '../../components/Icons';
import { useDialog } from '../../lib/hooks';

export interface AdsPopupProps {
  seconds: number;
  canClose: boolean;
  onClose: () => void;
}

/** Full-screen appeal with three 300×250 banners; the X appears once they loaded (spec §2). */
export function AdsPopup({ seconds, canClose, onClose }: AdsPopupProps) {
  const ref = useDialog<HTMLDivElement>(canClose ? onClose : undefined);
  return (
    <div ref={ref} tabIndex={-1} className="ads-popup" role="dialog" aria-modal="true" aria-labelledby="ads-popup-title">
      <div className="ads-popup-inner">
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
    </div>
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
