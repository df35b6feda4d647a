import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../event-store/port';
import { pointTimeline } from './point-history';

const at = '2026-11-03T10:00:00.000Z';
const recorded = (revision: number, type: string, data: unknown): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'user-u1',
  revision,
  position: { commit: BigInt(revision), prepare: 0n },
  type,
  data,
  metadata: { schemaVersion: 1, occurredAt: at, actor: { type: 'admin', id: 'a1' }, correlationId: `c${revision}` },
  recordedAt: new Date(at),
});

describe("the admin's point history of an erased member", () => {
  it('shows the erasure and who asked for it, the erased fields as erased, and the balance as history has it', () => {
    const timeline = pointTimeline([
      recorded(0, 'UserRegistered', { userId: 'u1', email: '', passwordHash: 'h', points: 10, priority: '', registeredAt: at }),
      recorded(1, 'ChatMessageSent', { userId: 'u1', messageId: 'm1', nickname: '', message: '', priority: '', pointsSpent: 1, sentAt: at }),
      recorded(2, 'MemberErased', { userId: 'u1', requestedBy: 'admin', adminId: 'a1', erasedAt: at }),
    ]);
    expect(timeline.map((e) => [e.description, e.points])).toEqual([
      ['Registered as (erased) with 10 points', 10],
      ['Chat message: (erased)', 9],
      ["Member erased at an admin's hand (a1): personal data destroyed", 9],
    ]);
  });
});

describe("the admin's point history of cards", () => {
  it('names a listed country and nothing for text a card was given off the list, erased or not', () => {
    const image = { path: 'a.webp', public_id: 'a', url: '/uploads/a.webp' };
    const card = { userId: 'u1', fullname: '', email: '', link: '', image, message: '' };
    const timeline = pointTimeline([
      recorded(0, 'UserRegistered', { userId: 'u1', email: '', passwordHash: 'h', points: 10, priority: '', registeredAt: at }),
      recorded(1, 'CertificatePosted', { ...card, country: 'Peru', postedAt: at }),
      recorded(2, 'CertificateUpdated', { ...card, country: 'Narnia '.repeat(500), updatedAt: at }),
      recorded(3, 'MemberErased', { userId: 'u1', requestedBy: 'member', erasedAt: at }),
    ]);
    expect(timeline.map((e) => e.description).slice(1, 3)).toEqual(['Posted a card as (erased) (Peru)', 'Updated the card as (erased)']);
  });
});

describe("the admin's point history in Spanish", () => {
  it('says every event in the dashboard\'s language, with the same figures as the English export', () => {
    const events = [
      recorded(0, 'UserRegistered', { userId: 'u1', email: 'ana@mail.org', passwordHash: 'h', points: 10, priority: '', registeredAt: at }),
      recorded(1, 'FreePointAwarded', { userId: 'u1', points: 1, awardedAt: at }),
      recorded(2, 'MemberErased', { userId: 'u1', requestedBy: 'member', erasedAt: at }),
    ];
    const spanish = pointTimeline(events, 'es');
    expect(spanish.map((e) => e.description)).toEqual([
      'Registrado como ana@mail.org con 10 puntos',
      'Punto gratis por ver un anuncio',
      'Miembro borrado a petición propia: datos personales destruidos',
    ]);
    expect(spanish.map((e) => [e.points, e.passes])).toEqual(pointTimeline(events).map((e) => [e.points, e.passes]));
  });
});
