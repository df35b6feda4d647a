import { describe, expect, it } from 'vitest';
import type { UserEvent } from '@pass/events';
import { RETRY_WINDOW_MESSAGES } from '../members/state';
import { claimed, memberSpec as spec, purchased, registered, t0, userId } from '../test-support/member-events';

describe('user: chat', () => {
  const send = { type: 'SendChatMessage', data: { userId, messageId: 'm1', message: 'hola' }, now: t0 } as const;
  it('spends one point and carries the text, as Anonymous before a certificate', () => {
    spec.given([registered]).when(send).then([
      { type: 'ChatMessageSent', data: { userId, messageId: 'm1', nickname: 'Anonymous', message: 'hola', priority: '', pointsSpent: 1, sentAt: t0.toISOString() } },
    ]);
  });
  it('refuses a message with no points left', () => {
    spec.given([registered, purchased(90), claimed(5)]).when(send).thenThrows('insufficient_points');
  });
  const sentAs = (messageId: string, pointsSpent = 1): UserEvent => ({
    type: 'ChatMessageSent',
    data: { userId, messageId, nickname: 'Anonymous', message: 'hola', priority: '', pointsSpent, sentAt: t0.toISOString() },
  });
  it('posts a retry (the same message id) once: nothing new, no point spent again', () => {
    spec.given([registered, sentAs('m1')]).when(send).then([]);
  });
  it('answers a retry even when the first send spent the last point', () => {
    spec.given([registered, purchased(90), claimed(5), sentAs('m0')]).when({ ...send, data: { ...send.data, messageId: 'm0' } }).then([]);
  });
  it('remembers the last RETRY_WINDOW_MESSAGES message ids, not more', () => {
    const many = Array.from({ length: RETRY_WINDOW_MESSAGES }, (_, i) => sentAs(`x${i}`, 0));
    spec.given([registered, sentAs('m1'), ...many]).when(send).thenState((state) => {
      expect(state.recentChatMessageIds).toHaveLength(RETRY_WINDOW_MESSAGES);
      expect(state.points).toBe(8);
    });
    spec.given([registered, sentAs('m1'), ...many.slice(1)]).when(send).then([]);
  });
});
