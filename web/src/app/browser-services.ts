import toast from 'react-hot-toast';
import { countAdSlots } from '../components/AdBanner';
import { api } from '../lib/http';
import type { Services } from '../lib/services';
import { createLiveSocket } from '../lib/socket';

type Navigate = (to: string, options?: { replace?: boolean; state?: unknown }) => unknown;

/** The real services: fetch, Socket.IO, the router, react-hot-toast, the DOM and local storage. */
export function browserServices(navigate: Navigate): Services {
  return {
    api,
    createSocket: createLiveSocket,
    navigate: (to, options) => void navigate(to, options),
    redirectHome: () => window.location.assign('/'),
    toast: {
      blank: (m) => void toast(m),
      success: (m, options) => void toast.success(m, options),
      error: (m, options) => void toast.error(m, options),
      // Removed at once: a dismissed toast stays on screen for its exit animation, beside the new outcome.
      dismiss: (id) => toast.remove(id),
    },
    ads: { count: (slot) => countAdSlots(slot) },
    storage: {
      get: (k) => {
        try {
          return window.localStorage.getItem(k);
        } catch {
          return null;
        }
      },
      set: (k, v) => {
        try {
          window.localStorage.setItem(k, v);
        } catch {
          // Private mode or full storage: the session still works without it.
        }
      },
      remove: (k) => {
        try {
          window.localStorage.removeItem(k);
        } catch {
          // As above.
        }
      },
    },
    saveFile: ({ blob, filename }) => {
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has read the URL once the click's download started.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
    logError: (message, error) => console.error(message, error),
    now: () => Date.now(),
  };
}
