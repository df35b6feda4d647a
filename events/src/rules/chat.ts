/** The global chat (docs/product.md §2 chat panel, §9): what a message costs and who it is shown as. Browser-safe. */
import type { Priority } from '../domain-events';

/** Points one chat message spends. */
export const POINTS_PER_CHAT_MESSAGE = 1;
/**
 * Messages a browser's chat panel is sent at once: on every (re)connect (getChatMessages) and to
 * everyone after the admin clears the chat; live messages are appended after them.
 */
export const CHAT_PANEL_MESSAGES = 50;
/** A member without a posted card chats as this nickname. */
export const ANONYMOUS_NICKNAME = 'Anonymous';

export function canAffordChatMessage(points: number): boolean {
  return points >= POINTS_PER_CHAT_MESSAGE;
}

/** The nickname a message is shown with: the card's full name, else Anonymous. */
export function chatNickname(fullname: string | null | undefined): string {
  return fullname || ANONYMOUS_NICKNAME;
}

/**
 * Whether a message is highlighted (with the member icon): the sender is a `specialUser`, the
 * priority reached at SPECIAL_USER_PASSES passes, as the about text promises ("highlighted after the
 * first 10 passes"). The spec's chat style ("normalUser plain, any other priority highlighted")
 * read literally would highlight members with no pass (empty priority); docs/product.md §6 says
 * how the two are reconciled.
 */
export function isHighlightedChatMessage(priority: Priority): boolean {
  return priority === 'specialUser';
}
