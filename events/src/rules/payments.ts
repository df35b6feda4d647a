/** Buying points (docs/product.md §3, §9): the price of a point and the nine purchase cards. Browser-safe. */
import { POINTS_NAME } from '../constants';
import { POINTS_PER_CHAT_MESSAGE } from './chat';
import { POINTS_PER_PASS } from './passes';

export const CURRENCY = 'USD';
export const POINTS_PER_USD = 100;

/** Points a payment of `amountUsd` buys. */
export function pointsForUsd(amountUsd: number): number {
  return Math.round(amountUsd * POINTS_PER_USD);
}

export interface PurchaseOption {
  /** Price in whole US dollars. */
  amountUsd: number;
  points: number;
  passes: number;
  description: string;
}

export function purchaseDescription(points: number): string {
  const passes = points / POINTS_PER_PASS;
  const messages = points / POINTS_PER_CHAT_MESSAGE;
  const formatted = (count: number) => count.toLocaleString('en-US');
  // "exchangable" is spelled as the spec writes it.
  return `${formatted(points)} ${POINTS_NAME} points, exchangable for ${formatted(passes)} passes or ${formatted(messages)} messages in the global chat`;
}

/** The nine purchase cards of docs/product.md §9, in order. */
export const PURCHASE_OPTIONS: readonly PurchaseOption[] = [1, 5, 10, 20, 30, 50, 100, 500, 1000].map((amountUsd) => {
  const points = pointsForUsd(amountUsd);
  return { amountUsd, points, passes: points / POINTS_PER_PASS, description: purchaseDescription(points) };
});

export function purchaseOptionFor(amountUsd: number): PurchaseOption | undefined {
  return PURCHASE_OPTIONS.find((option) => option.amountUsd === amountUsd);
}
