import { memo } from 'react';
import { LIMITS } from '@pass/events/kernel';
import type { AdSlot } from '../lib/services';

const networkKey = import.meta.env.VITE_AD_NETWORK_KEY ?? '';
const networkHost = import.meta.env.VITE_AD_NETWORK_HOST || 'www.highperformanceformat.com';
const HOUSE_BANNERS = 4;

/** The network's invoke script writes its own iframe; it runs in a same-origin srcdoc frame so slots don't clash. */
function networkDocument(key: string): string {
  const options = JSON.stringify({ key, format: 'iframe', height: LIMITS.adHeight, width: LIMITS.adWidth, params: {} });
  return `<!doctype html><html><body style="margin:0"><script>atOptions=${options};</script><script src="https://${networkHost}/${encodeURIComponent(key)}/invoke.js"></script></body></html>`;
}

export interface AdBannerProps {
  slot: AdSlot;
  /** Picks which house banner shows, so neighbouring slots differ. */
  index: number;
}

/** A 300×250 ad slot. The ad checks look for a loaded iframe inside `[data-ad-slot]`. */
export const AdBanner = memo(function AdBanner({ slot, index }: AdBannerProps) {
  const house = (index % HOUSE_BANNERS) + 1;
  return (
    <div className="ad-slot" data-ad-slot={slot} role="complementary" aria-label="Advertisement">
      {networkKey ? (
        <iframe
          title="Advertisement"
          data-network="true"
          width={LIMITS.adWidth}
          height={LIMITS.adHeight}
          srcDoc={networkDocument(networkKey)}
        />
      ) : (
        <iframe
          title="Advertisement"
          width={LIMITS.adWidth}
          height={LIMITS.adHeight}
          src={`/ads/house-${house}.html`}
          loading="eager"
        />
      )}
    </div>
  );
});

/** How many slots of a kind are rendered and how many hold an ad iframe (spec §4 ad checks). */
export function countAdSlots(slot: AdSlot, root: ParentNode = document): { slots: number; loaded: number } {
  const containers = Array.from(root.querySelectorAll<HTMLElement>(`[data-ad-slot="${slot}"]`));
  let loaded = 0;
  for (const container of containers) {
    const frame = container.querySelector('iframe');
    if (!frame) continue;
    if (frame.dataset.network === 'true') {
      try {
        if (frame.contentDocument?.querySelector('iframe')) loaded++;
      } catch {
        // Cross-origin means the network replaced the frame: count it as loaded.
        loaded++;
      }
    } else {
      loaded++;
    }
  }
  return { slots: containers.length, loaded };
}
