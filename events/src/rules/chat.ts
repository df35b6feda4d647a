/** The global chat (docs/product.md §2 chat panel, §9): what a message costs and who it is shown as. Browser-safe. */

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
