import type { PointHistoryEntry } from '../api';
import type { DomainEvent } from '../domain-events';
import type { RecordedEvent } from '../event-store/port';
import { isEventOf, type UserEvent } from '../stream-events';
import { toCurrentEvent } from '../upcasters';

/**
 * A member's own stream as a timeline: every event with what it did to the balance and the
 * passes, the running totals after it, who caused it and the correlation id that ties it to a
 * request. One function for the admin's point history (query-api) and the member's own data
 * export (command-api), so both show the same numbers. Browser-safe.
 */

interface Change {
  description: string;
  pointsDelta: number;
  passesDelta: number;
}

const isUserEvent = isEventOf('user');

/**
 * The language of a timeline: English for the member's own export, Spanish for the admin
 * dashboard (docs/product.md §2: the dashboard is in Spanish, its point history included).
 */
export type TimelineLanguage = 'en' | 'es';

type Of<T extends UserEvent['type']> = Extract<UserEvent, { type: T }>['data'];

/** Every sentence a timeline says, per language; the figures beside them are the same. */
interface TimelineTexts {
  /** A personal field of an erased member reads as '' (its key is destroyed): said so, not left blank. */
  erased: string;
  registered(email: string, points: number): string;
  freePoint: string;
  purchased(data: Of<'PointsPurchased'>): string;
  reversed(data: Of<'PurchaseReversed'>): string;
  claimed(passes: number): string;
  priority(priority: string): string;
  posted(name: string, country: string): string;
  updated(name: string, country: string): string;
  chat(text: string): string;
  postDeleted(by: string): string;
  passwordChanged(via: Of<'PasswordChanged'>['via']): string;
  resetRequested: string;
  memberErased(data: Of<'MemberErased'>): string;
  unreadable(type: string): string;
}

/** A card's country after its name; none (a card recorded with text off the list) adds nothing. */
const inCountry = (country: string) => (country ? ` (${country})` : '');

const TEXTS: Record<TimelineLanguage, TimelineTexts> = {
  en: {
    erased: '(erased)',
    registered: (email, points) => `Registered as ${email} with ${points} points`,
    freePoint: 'Free point for an ad view',
    purchased: (p) => `Bought ${p.points} points for ${p.amountUsd} USD (${p.provider}, capture ${p.captureId})`,
    reversed: (r) => `Purchase ${r.captureId} ${r.reason}: ${r.amountUsd} USD`,
    claimed: (passes) => `Claimed ${passes} passes`,
    priority: (priority) => `Priority set to ${priority || 'none'}`,
    posted: (name, country) => `Posted a card as ${name}${inCountry(country)}`,
    updated: (name, country) => `Updated the card as ${name}${inCountry(country)}`,
    chat: (text) => `Chat message: ${text}`,
    postDeleted: (by) => `Post deleted by ${by}`,
    passwordChanged: (via) => (via === 'reset' ? 'Password set with a reset link' : 'Password changed'),
    resetRequested: 'Password reset link sent',
    memberErased: (e) =>
      `Member erased at ${e.requestedBy === 'admin' ? `an admin's hand (${e.adminId ?? 'unknown'})` : 'their own request'}: personal data destroyed`,
    unreadable: (type) => `Unreadable ${type} event`,
  },
  es: {
    erased: '(borrado)',
    registered: (email, points) => `Registrado como ${email} con ${points} puntos`,
    freePoint: 'Punto gratis por ver un anuncio',
    purchased: (p) => `Compró ${p.points} puntos por ${p.amountUsd} USD (${p.provider}, captura ${p.captureId})`,
    reversed: (r) => `Compra ${r.captureId} ${r.reason === 'refunded' ? 'reembolsada' : 'revertida'}: ${r.amountUsd} USD`,
    claimed: (passes) => `Obtuvo ${passes} pases`,
    priority: (priority) => `Prioridad cambiada a ${priority || 'ninguna'}`,
    posted: (name, country) => `Publicó una tarjeta como ${name}${inCountry(country)}`,
    updated: (name, country) => `Actualizó la tarjeta como ${name}${inCountry(country)}`,
    chat: (text) => `Mensaje del chat: ${text}`,
    postDeleted: (by) => `Publicación eliminada por ${by}`,
    passwordChanged: (via) => (via === 'reset' ? 'Contraseña establecida con un enlace de restablecimiento' : 'Contraseña cambiada'),
    resetRequested: 'Enlace para restablecer la contraseña enviado',
    memberErased: (e) =>
      `Miembro borrado ${e.requestedBy === 'admin' ? `por un administrador (${e.adminId ?? 'desconocido'})` : 'a petición propia'}: datos personales destruidos`,
    unreadable: (type) => `Evento ${type} ilegible`,
  },
};

const change = (description: string, pointsDelta = 0, passesDelta = 0): Change => ({ description, pointsDelta, passesDelta });

/** What an event of a member's stream did (the kernel's list of the user stream's events, every one described). */
function describeUserEvent(event: UserEvent, t: TimelineTexts): Change {
  const shown = (value: string) => value || t.erased;
  switch (event.type) {
    case 'UserRegistered':
      return change(t.registered(shown(event.data.email), event.data.points), event.data.points);
    case 'FreePointAwarded':
      return change(t.freePoint, event.data.points);
    case 'PointsPurchased':
      return change(t.purchased(event.data), event.data.points);
    case 'PurchaseReversed':
      return change(t.reversed(event.data), -event.data.points);
    case 'PassesClaimed':
      return change(t.claimed(event.data.passes), -event.data.pointsSpent, event.data.passes);
    case 'PriorityChanged':
      return change(t.priority(event.data.priority));
    case 'CertificatePosted':
      return change(t.posted(shown(event.data.fullname), event.data.country));
    case 'CertificateUpdated':
      return change(t.updated(shown(event.data.fullname), event.data.country));
    case 'ChatMessageSent': {
      const text = event.data.message.length > 60 ? `${event.data.message.slice(0, 57)}...` : shown(event.data.message);
      return change(t.chat(text), -event.data.pointsSpent);
    }
    case 'MemberPostDeleted':
      return change(t.postDeleted(event.data.deletedBy));
    case 'PasswordChanged':
      return change(t.passwordChanged(event.data.via));
    case 'PasswordResetRequested':
      return change(t.resetRequested);
    case 'MemberErased':
      return change(t.memberErased(event.data));
  }
}

/** Another stream's event in a member's stream would be a bug; it is shown by its type, changing nothing. */
function describe(event: DomainEvent, t: TimelineTexts): Change {
  return isUserEvent(event) ? describeUserEvent(event, t) : change(event.type);
}

function actorOf(metadata: Record<string, unknown>): string {
  const actor = metadata.actor as { type?: string; id?: string } | undefined;
  if (!actor?.type) return 'unknown';
  return actor.id ? `${actor.type}:${actor.id}` : actor.type;
}

/** The recorded events of one member's stream, oldest first, as the timeline with running totals. */
export function pointTimeline(events: readonly RecordedEvent[], language: TimelineLanguage = 'en'): PointHistoryEntry[] {
  const t = TEXTS[language];
  let points = 0;
  let passes = 0;
  return events.map((recorded) => {
    let change: Change;
    try {
      change = describe(toCurrentEvent(recorded), t);
    } catch {
      change = { description: t.unreadable(recorded.type), pointsDelta: 0, passesDelta: 0 };
    }
    points += change.pointsDelta;
    passes += change.passesDelta;
    return {
      revision: recorded.revision,
      at: typeof recorded.metadata.occurredAt === 'string' ? recorded.metadata.occurredAt : recorded.recordedAt.toISOString(),
      type: recorded.type,
      description: change.description,
      pointsDelta: change.pointsDelta,
      passesDelta: change.passesDelta,
      points,
      passes,
      actor: actorOf(recorded.metadata),
      correlationId: typeof recorded.metadata.correlationId === 'string' ? recorded.metadata.correlationId : '',
    };
  });
}
