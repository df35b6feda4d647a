import type { EventType } from '../domain-events';

/**
 * Which string fields of an event are a member's personal data, and which field names the
 * member whose key protects them. The event store encrypts exactly these fields with that
 * member's key (crypto-shredding: erasing a member destroys the key, the events stay).
 * Not listed on purpose: ids, amounts, countries (summed into totals), times, the image object
 * (its file is deleted at erasure) and admin events. docs/architecture.md, "Personal data".
 */
export interface PersonalFields {
  /** The data field holding the member id whose key encrypts `fields`. */
  readonly owner: string;
  readonly fields: readonly string[];
}

const certificate: PersonalFields = { owner: 'userId', fields: ['fullname', 'email', 'link', 'message'] };

export const personalFieldsByType: Readonly<Partial<Record<EventType, PersonalFields>>> = {
  UserRegistered: { owner: 'userId', fields: ['email'] },
  CertificatePosted: certificate,
  CertificateUpdated: certificate,
  ChatMessageSent: { owner: 'userId', fields: ['nickname', 'message'] },
  EmailReserved: { owner: 'userId', fields: ['email'] },
};

/** The personal fields of an event type, or undefined when it holds none. */
export function personalFieldsOf(type: string): PersonalFields | undefined {
  return Object.hasOwn(personalFieldsByType, type) ? personalFieldsByType[type as EventType] : undefined;
}

/** What an erased member's personal field reads as: still a valid string for every schema. */
export const ERASED_VALUE = '';

/** The event that erases a member: once it is stored, their key is destroyed. */
export const ERASURE_EVENT = { type: 'MemberErased', owner: 'userId' } as const;
