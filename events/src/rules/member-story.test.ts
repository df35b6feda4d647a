import { describe, expect, it } from 'vitest';
import type { MemberStoryEntry } from '../api';
import type { RecordedEvent } from '../event-store/port';
import type { UserEvent } from '../stream-events';
import { evolveUser, initialUserState } from './member-state';
import { memberStory, pointTimeline } from './point-history';

/**
 * The admin's story of a member (docs/product.md §2, the dashboard): given a member's stream as
 * the store reads it, when the admin steps through it, then each entry carries the totals,
 * priority and card after its event.
 */

const at = (minute: number) => `2026-11-03T10:${String(minute).padStart(2, '0')}:00.000Z`;
const userId = 'u1';
const image = (id: string) => ({ path: `cards/u1/u1.${id}.webp`, public_id: id, url: `/uploads/cards/u1/u1.${id}.webp` });
const card = (fullname: string, message: string, imageId: string) => ({
  userId,
  fullname,
  country: 'Peru',
  email: fullname ? 'ana@mail.org' : '',
  link: fullname ? 'https://example.com/ana' : '',
  image: image(imageId),
  message,
});

const joined: UserEvent = { type: 'UserRegistered', data: { userId, email: 'ana@mail.org', passwordHash: 'h', points: 10, priority: '', registeredAt: at(0) } };
const bought: UserEvent = {
  type: 'PointsPurchased',
  data: { userId, provider: 'simulated', orderId: 'o1', captureId: 'c1', amountUsd: 5, points: 500, purchasedAt: at(1) },
};
const claimed: UserEvent = { type: 'PassesClaimed', data: { userId, reservationId: 'r1', passes: 10, pointsSpent: 200, claimedAt: at(2) } };
const special: UserEvent = { type: 'PriorityChanged', data: { userId, priority: 'specialUser', changedAt: at(2) } };
const posted: UserEvent = { type: 'CertificatePosted', data: { ...card('Ana Poster', 'Hola a todos', 'a'.repeat(32)), postedAt: at(3) } };
const edited: UserEvent = { type: 'CertificateUpdated', data: { ...card('Ana Poster', 'Adiós a todos', 'b'.repeat(32)), updatedAt: at(4) } };
const deleted: UserEvent = { type: 'MemberPostDeleted', data: { userId, deletedBy: 'admin-1', deletedAt: at(5) } };

const recorded = (events: readonly UserEvent[]): RecordedEvent[] =>
  events.map((event, revision) => ({
    id: `e${revision}`,
    streamId: `user-${userId}`,
    revision,
    position: { commit: BigInt(revision), prepare: 0n },
    type: event.type,
    data: event.data,
    metadata: { schemaVersion: 1, occurredAt: at(revision), actor: { type: 'user', id: userId }, correlationId: `c${revision}` },
    recordedAt: new Date(at(revision)),
  }));

const given = (events: readonly UserEvent[]) => ({ whenStepped: () => memberStory(recorded(events), 'es') });
const state = (entry: MemberStoryEntry) => [entry.type, entry.points, entry.passes, entry.priority, entry.card.status];

describe('the story of a member who joins, buys points, claims passes and posts a card', () => {
  it('then each entry holds the totals, priority and card after its event', () => {
    const story = given([joined, bought, claimed, special, posted, edited]).whenStepped();
    expect(story.map(state)).toEqual([
      ['UserRegistered', 10, 0, '', 'none'],
      ['PointsPurchased', 510, 0, '', 'none'],
      ['PassesClaimed', 310, 10, '', 'none'],
      ['PriorityChanged', 310, 10, 'specialUser', 'none'],
      ['CertificatePosted', 310, 10, 'specialUser', 'shown'],
      ['CertificateUpdated', 310, 10, 'specialUser', 'shown'],
    ]);
    expect(story[5]!.card).toEqual({
      status: 'shown',
      fullname: 'Ana Poster',
      country: 'Peru',
      link: 'https://example.com/ana',
      message: 'Adiós a todos',
      imageUrl: image('b'.repeat(32)).url,
    });
  });

  it('then the card before an edit is shown as it was, without the image the edit replaced (its file is gone)', () => {
    const story = given([joined, bought, claimed, posted, edited]).whenStepped();
    expect(story[3]!.card).toEqual({ status: 'shown', fullname: 'Ana Poster', country: 'Peru', link: 'https://example.com/ana', message: 'Hola a todos', imageUrl: null });
  });

  it("then after the admin deletes the post there is no card, and the card before it keeps its words but not its image", () => {
    const story = given([joined, bought, claimed, posted, deleted]).whenStepped();
    expect(story.map((e) => e.card.status)).toEqual(['none', 'none', 'none', 'shown', 'none']);
    expect(story[3]!.card).toMatchObject({ message: 'Hola a todos', imageUrl: null });
  });

  it('then its totals and priority are those of the aggregate the commands decide on', () => {
    const events = [joined, bought, claimed, special, posted, edited];
    const aggregate = events.reduce(evolveUser, initialUserState());
    const last = given(events).whenStepped().at(-1)!;
    expect([last.points, last.passes, last.priority]).toEqual([aggregate.points, aggregate.passes, aggregate.priority]);
  });
});

describe('the story of an erased member', () => {
  // As the store reads it once the key is destroyed: every personal field is ''.
  const shredded = (event: UserEvent): UserEvent => {
    if (event.type === 'UserRegistered') return { ...event, data: { ...event.data, email: '' } };
    if (event.type === 'CertificatePosted' || event.type === 'CertificateUpdated') {
      return { ...event, data: { ...event.data, fullname: '', email: '', link: '', message: '' } } as UserEvent;
    }
    return event;
  };
  const erased: UserEvent = { type: 'MemberErased', data: { userId, requestedBy: 'admin', adminId: 'admin-1', erasedAt: at(6) } };

  it('then the card reads as erased from the erasure on and at every earlier step that had one; the totals stay', () => {
    const story = given([joined, bought, claimed, special, posted, edited, erased].map(shredded)).whenStepped();
    expect(story.map(state)).toEqual([
      ['UserRegistered', 10, 0, '', 'none'],
      ['PointsPurchased', 510, 0, '', 'none'],
      ['PassesClaimed', 310, 10, '', 'none'],
      ['PriorityChanged', 310, 10, 'specialUser', 'none'],
      ['CertificatePosted', 310, 10, 'specialUser', 'erased'],
      ['CertificateUpdated', 310, 10, 'specialUser', 'erased'],
      ['MemberErased', 310, 10, 'specialUser', 'erased'],
    ]);
    // Neither the country nor the image of an erased card is told, step by step or in the JSON.
    expect(JSON.stringify(story.map((e) => e.card))).not.toMatch(/Peru|uploads/);
  });

  it('then a member erased before any card shows none until the erasure, erased from it', () => {
    const story = given([joined, erased].map(shredded)).whenStepped();
    expect(story.map((e) => e.card.status)).toEqual(['none', 'erased']);
  });
});

describe('the member export beside the story', () => {
  it('keeps the timeline alone (no card per step) and the same totals', () => {
    const events = recorded([joined, bought, claimed, posted]);
    const timeline = pointTimeline(events);
    expect(Object.keys(timeline[0]!)).not.toContain('card');
    expect(timeline.map((e) => [e.pointsDelta, e.points, e.passes])).toEqual(memberStory(events).map((e) => [e.pointsDelta, e.points, e.passes]));
  });
});

describe('an unreadable event in the story', () => {
  it('is shown by its type and changes neither the totals nor the card', () => {
    const events = recorded([joined, posted]);
    events.push({ ...events[1]!, id: 'e2', revision: 2, data: { broken: true } });
    const story = memberStory(events, 'es');
    expect(story[2]).toMatchObject({ description: 'Evento CertificatePosted ilegible', pointsDelta: 0, points: 10, card: story[1]!.card });
  });
});
