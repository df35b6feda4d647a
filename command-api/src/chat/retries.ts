import { createHash } from 'node:crypto';

/**
 * The message id of a member's send with a client request id: the same for every retry of that
 * send, so the member decider can tell the retry from a new message. A UUID-shaped SHA-256 of
 * member and request id (one member's id cannot name another member's message).
 */
export function chatMessageIdFor(userId: string, requestId: string): string {
  const hex = createHash('sha256').update(`chat\n${userId}\n${requestId}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant, so it reads as a UUID like the random ones.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
