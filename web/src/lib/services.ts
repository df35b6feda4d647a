import type { SagaIterator } from 'redux-saga';
import type { Api, DownloadedFile } from './http';
import type { LiveSocket } from './socket';

export type AdSlot = 'main' | 'popup' | 'check';

export interface ToastOptions {
  id?: string;
}

/** Everything the sagas touch outside Redux, so tests can replace it. */
export interface Services {
  api: Api;
  createSocket(): LiveSocket;
  navigate(to: string, options?: { replace?: boolean; state?: unknown }): void;
  /** A full page load of the product's home ("the browser is sent to the product's home"). */
  redirectHome(): void;
  toast: {
    blank(message: string): void;
    /** With an `id`, the toast replaces the one showing under that id (one outcome at a time). */
    success(message: string, options?: ToastOptions): void;
    error(message: string, options?: ToastOptions): void;
    /** Takes away the toast showing under `id`, if any. */
    dismiss(id: string): void;
  };
  ads: {
    /** Number of rendered slots of a kind, and how many of them hold a loaded ad iframe. */
    count(slot: AdSlot): { slots: number; loaded: number };
  };
  storage: {
    get(key: string): string | null;
    set(key: string, value: string): void;
    remove(key: string): void;
  };
  /** Hands a downloaded file to the browser, which saves it under its name. */
  saveFile(file: DownloadedFile): void;
  /** Network and payment failures are only logged (docs/product.md §8). */
  logError(message: string, error?: unknown): void;
  now(): number;
}

export const STORAGE_KEYS = {
  userId: 'userId',
  adminId: 'adminId',
  acceptedCookie: 'acceptedCookie',
} as const;

/**
 * A feature's saga: the services, and the one live connection the app opens for everyone
 * (app/root-saga.ts); the page frame owns its lifecycle, chat and free points send over it.
 */
export type FeatureSaga = (services: Services, live: LiveSocket) => SagaIterator;
