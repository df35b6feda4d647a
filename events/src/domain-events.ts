import { z } from 'zod';

/**
 * Every fact the product records. Events are past-tense and carry the data a reader needs,
 * so projections never have to look anything up. Times are ISO-8601 strings.
 * Bump `eventSchemaVersions[type]` and add an upcaster in `upcasters.ts` when a shape changes.
 */
const iso = z.iso.datetime();
const id = z.string().min(1);

export const prioritySchema = z.enum(['', 'normalUser', 'specialUser']);
export type Priority = z.infer<typeof prioritySchema>;

export const imageSchema = z.object({
  /** Path under the uploads folder, e.g. `ab/abcdef.webp`. */
  path: z.string().min(1),
  /** Stable id of the stored image (the original app's cloud `public_id`). */
  public_id: z.string().min(1),
  /** URL the web app shows, e.g. `/uploads/ab/abcdef.webp`. */
  url: z.string().min(1),
});
export type Image = z.infer<typeof imageSchema>;

const certificateData = z.object({
  userId: id,
  fullname: z.string(),
  /** One of `COUNTRIES`, or '' (version 1 cards with other text read as '', upcasters.ts). */
  country: z.string(),
  email: z.string(),
  link: z.string(),
  image: imageSchema,
  message: z.string(),
});

export const eventDataSchemas = {
  // user-{id}
  UserRegistered: z.object({
    userId: id,
    email: z.string(),
    passwordHash: z.string(),
    points: z.number().int(),
    priority: prioritySchema,
    registeredAt: iso,
  }),
  FreePointAwarded: z.object({ userId: id, points: z.number().int().positive(), awardedAt: iso }),
  PointsPurchased: z.object({
    userId: id,
    provider: z.enum(['paypal', 'simulated']),
    orderId: id,
    captureId: id,
    amountUsd: z.number().positive(),
    points: z.number().int().positive(),
    purchasedAt: iso,
  }),
  PurchaseReversed: z.object({
    userId: id,
    captureId: id,
    reason: z.enum(['refunded', 'reversed']),
    amountUsd: z.number().nonnegative(),
    /** Points taken back; never more than the member holds, so the balance stays >= 0. */
    points: z.number().int().nonnegative(),
    reversedAt: iso,
    /**
     * A partial refund (PayPal refunds part of a capture): `amountUsd` is this refund's share and
     * `points` its proportional share of the purchase's points; the purchase stays credited for
     * the rest. Absent (older events) or false: the purchase is reversed in full by this event.
     */
    partial: z.boolean().optional(),
    /** The provider's refund this event records (redeliveries of it change nothing). */
    refundId: id.optional(),
    /** USD refunded on this capture so far, this refund included. */
    refundedUsd: z.number().nonnegative().optional(),
  }),
  PassesClaimed: z.object({
    userId: id,
    reservationId: id,
    passes: z.number().int().positive(),
    pointsSpent: z.number().int().positive(),
    claimedAt: iso,
  }),
  PriorityChanged: z.object({ userId: id, priority: prioritySchema, changedAt: iso }),
  CertificatePosted: certificateData.extend({ postedAt: iso }),
  CertificateUpdated: certificateData.extend({ updatedAt: iso }),
  ChatMessageSent: z.object({
    userId: id,
    messageId: id,
    nickname: z.string(),
    message: z.string(),
    priority: prioritySchema,
    pointsSpent: z.number().int().nonnegative(),
    sentAt: iso,
  }),
  MemberPostDeleted: z.object({ userId: id, deletedBy: id, deletedAt: iso }),
  /**
   * The member's personal data is erased: the store destroys their key once this is stored, so
   * their e-mail, card texts and chat texts read as '' from then on (docs/architecture.md,
   * "Personal data"). Asked by the member, or by an admin (`adminId`) acting on a request.
   */
  MemberErased: z.object({ userId: id, requestedBy: z.enum(['member', 'admin']), adminId: id.optional(), erasedAt: iso }),
  /**
   * The member's password hash from now on: set by the member (`via: 'change'`, knowing the
   * current one) or through a reset link (`via: 'reset'`, `tokenHash` the link it used). Every
   * reset link asked for before it stops working.
   */
  PasswordChanged: z.object({ userId: id, passwordHash: z.string().min(1), via: z.enum(['change', 'reset']), tokenHash: z.string().optional(), changedAt: iso }),
  /**
   * A reset link was mailed (the SHA-256 of its secret, its expiry). Nothing appends it: a link
   * is signed, and a write made only for registered addresses would show which ones are. Stored
   * ones are read as the member's history.
   */
  PasswordResetRequested: z.object({ userId: id, tokenHash: z.string().min(1), expiresAt: iso, requestedAt: iso }),

  // email-{hash}
  EmailReserved: z.object({ email: z.string(), userId: id, reservedAt: iso }),
  /** The member holding the reservation was erased: the e-mail can join again, as a new member. */
  EmailReleased: z.object({ userId: id, releasedAt: iso }),

  // passes-pool
  PassSupplySet: z.object({ available: z.number().int().nonnegative(), setBy: id, setAt: iso }),
  PassesReserved: z.object({
    reservationId: id,
    userId: id,
    passes: z.number().int().positive(),
    reservedAt: iso,
  }),
  PassReservationConfirmed: z.object({ reservationId: id, userId: id, passes: z.number().int().positive(), confirmedAt: iso }),
  PassReservationReleased: z.object({
    reservationId: id,
    userId: id,
    passes: z.number().int().positive(),
    reason: z.string(),
    releasedAt: iso,
    /**
     * Passes given back to the available figure; absent means all of `passes`. 0 when an admin's
     * supply edit came after the reservation: the edit's figure already counted them.
     */
    returned: z.number().int().nonnegative().optional(),
  }),

  // site
  MainDataEdited: z.object({
    cpm: z.number().nonnegative(),
    donations: z.number().nonnegative(),
    /** day/month/year as the spec shows it, or '' when unset. */
    startDate: z.string(),
    editedBy: id,
    editedAt: iso,
  }),
  AdViewsReset: z.object({ views: z.number().int().nonnegative(), resetBy: id, resetAt: iso }),
  ChatCleared: z.object({ clearedBy: id, clearedAt: iso }),

  // admin-{id}
  AdminRegistered: z.object({ adminId: id, email: z.string(), passwordHash: z.string(), registeredAt: iso }),
} as const;

export type EventType = keyof typeof eventDataSchemas;
export const eventTypes = Object.keys(eventDataSchemas) as EventType[];

/**
 * Current schema version per event type; stored in each event's metadata. Cards are at 2: their
 * `country` is one of the list or '' (`COUNTRIES`), which version 1 did not promise.
 */
export const eventSchemaVersions: Record<EventType, number> = Object.fromEntries(
  eventTypes.map((t) => [t, t === 'CertificatePosted' || t === 'CertificateUpdated' ? 2 : 1]),
) as Record<EventType, number>;

export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

/** The discriminated union every decider and projection switches over. */
export type DomainEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
export type DomainEventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventDataSchemas, type);
}

/** Compile-time exhaustiveness check for `switch` statements over unions. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
