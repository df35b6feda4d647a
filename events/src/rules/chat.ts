/** The global chat (spec §2 chat panel, §9): what a message costs and who it is shown as. Browser-safe. */

/** Points one chat message spends. */
export const POINTS_PER_CHAT_MESSAGE = 1;
/** A member without a posted card chats as this nickname. */
export const ANONYMOUS_NICKNAME = 'Anonymous';

export function canAffordChatMessage(points: number): boolean {
  return points >= POINTS_PER_CHAT_MESSAGE;
}

/** The nickname a message is shown with: the card's full name, else Anonymous. */
export function chatNickname(fullname: string | null | undefined): string {
  return fullname || ANONYMOUS_NICKNAME;
}
