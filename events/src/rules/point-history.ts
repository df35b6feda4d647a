import type { MemberStoryCard, MemberStoryEntry, PointHistoryEntry } from '../api';
import type { RecordedEvent } from '../event-store/port';
import { isEventOf, type UserEvent } from '../stream-events';
import { toCurrentEvent } from '../upcasters';
import { evolveUser, initialUserState, type UserState } from './member-state';

/**
 * A member's own stream as a timeline: every event with what it did to the balance and the
 * passes, the running totals after it, who caused it and the correlation id that ties it to a
 * request. One fold for the admin's story (query-api, which adds the priority and card after
 * each event) and the member's own data export (command-api), so both show the same numbers;
 * that fold is the member aggregate's `evolveUser`. Browser-safe.
 */

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

/** What an event of a member's stream did, in words (the kernel's list of the user stream's events, every one described). */
function describeUserEvent(event: UserEvent, t: TimelineTexts): string {
  const shown = (value: string) => value || t.erased;
  switch (event.type) {
    case 'UserRegistered':
      return t.registered(shown(event.data.email), event.data.points);
    case 'FreePointAwarded':
      return t.freePoint;
    case 'PointsPurchased':
      return t.purchased(event.data);
    case 'PurchaseReversed':
      return t.reversed(event.data);
    case 'PassesClaimed':
      return t.claimed(event.data.passes);
    case 'PriorityChanged':
      return t.priority(event.data.priority);
    case 'CertificatePosted':
      return t.posted(shown(event.data.fullname), event.data.country);
    case 'CertificateUpdated':
      return t.updated(shown(event.data.fullname), event.data.country);
    case 'ChatMessageSent':
      return t.chat(event.data.message.length > 60 ? `${event.data.message.slice(0, 57)}...` : shown(event.data.message));
    case 'MemberPostDeleted':
      return t.postDeleted(event.data.deletedBy);
    case 'PasswordChanged':
      return t.passwordChanged(event.data.via);
    case 'PasswordResetRequested':
      return t.resetRequested;
    case 'MemberErased':
      return t.memberErased(event.data);
  }
}

function actorOf(metadata: Record<string, unknown>): string {
  const actor = metadata.actor as { type?: string; id?: string } | undefined;
  if (!actor?.type) return 'unknown';
  return actor.id ? `${actor.type}:${actor.id}` : actor.type;
}

/** One recorded event with its timeline entry and the member's state after it. */
interface Step {
  entry: PointHistoryEntry;
  after: UserState;
}

/**
 * The member aggregate's own fold (`evolveUser`, the one the decide steps use) over the stream,
 * keeping each event's state: the running totals and deltas are what the fold holds, so they are
 * the balances the commands decided on. Another stream's event (a bug) or an unreadable one is
 * shown by its type and changes nothing.
 */
function steps(events: readonly RecordedEvent[], t: TimelineTexts): Step[] {
  let state = initialUserState();
  return events.map((recorded) => {
    const before = state;
    let description: string;
    try {
      const event = toCurrentEvent(recorded);
      if (isUserEvent(event)) {
        description = describeUserEvent(event, t);
        state = evolveUser(state, event);
      } else description = event.type;
    } catch {
      description = t.unreadable(recorded.type);
    }
    const entry: PointHistoryEntry = {
      revision: recorded.revision,
      at: typeof recorded.metadata.occurredAt === 'string' ? recorded.metadata.occurredAt : recorded.recordedAt.toISOString(),
      type: recorded.type,
      description,
      pointsDelta: state.points - before.points,
      passesDelta: state.passes - before.passes,
      points: state.points,
      passes: state.passes,
      actor: actorOf(recorded.metadata),
      correlationId: typeof recorded.metadata.correlationId === 'string' ? recorded.metadata.correlationId : '',
    };
    return { entry, after: state };
  });
}

/** The recorded events of one member's stream, oldest first, as the timeline with running totals. */
export function pointTimeline(events: readonly RecordedEvent[], language: TimelineLanguage = 'en'): PointHistoryEntry[] {
  return steps(events, TEXTS[language]).map((step) => step.entry);
}

/**
 * The card as the site showed it after one step (docs/product.md §2, the admin's story of a
 * member). An erased member's card reads as erased at every step that had one: its personal
 * fields are destroyed and its image deleted, so nothing of it is shown, before the erasure or
 * after. An image another card (or the admin's deletion) has replaced since is deleted from the
 * site: its address is left out, the rest of that card is shown.
 */
function cardAfter(state: UserState, memberErased: boolean, keptImageUrl: string | undefined): MemberStoryCard {
  if (memberErased && (state.erased || state.certificate)) return { status: 'erased' };
  if (!state.certificate) return { status: 'none' };
  const { fullname, country, link, message, image } = state.certificate;
  return { status: 'shown', fullname, country, link, message, imageUrl: image.url === keptImageUrl ? image.url : null };
}

/**
 * A member's story for the admin: the timeline, and after each event the member's priority and
 * card as they stood then (points and passes are the timeline's running totals), so a dispute can
 * be stepped through event by event.
 */
export function memberStory(events: readonly RecordedEvent[], language: TimelineLanguage = 'en'): MemberStoryEntry[] {
  const all = steps(events, TEXTS[language]);
  const now = all.at(-1)?.after;
  const memberErased = now?.erased ?? false;
  const keptImageUrl = now?.certificate?.image.url;
  return all.map(({ entry, after }) => ({ ...entry, priority: after.priority, card: cardAfter(after, memberErased, keptImageUrl) }));
}
