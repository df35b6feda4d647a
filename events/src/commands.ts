import { z } from 'zod';
import { imageSchema } from './domain-events';

/**
 * Commands of the write side (docs/architecture.md, "Command side"), one union per aggregate. A command is an intention:
 * the decider of its aggregate accepts it (events) or refuses it (a typed domain error).
 * `now` is passed in, so deciders stay pure. HTTP bodies are validated with the form rules (`rules/`) first;
 * these schemas check what the command side builds from them (and what a forwarding gateway
 * sends across processes).
 */
const id = z.string().min(1);
const now = z.date();

const command = <T extends string, D extends z.ZodRawShape>(type: T, data: D) =>
  z.object({ type: z.literal(type), data: z.object(data), now });

// ---- user-{id} ------------------------------------------------------------------------------
export const userCommandSchemas = {
  RegisterUser: command('RegisterUser', { userId: id, email: z.string().min(1), passwordHash: z.string().min(1) }),
  /** `adViewStartedAt`: when the member's signed ad-view ticket was issued (the countdown started). */
  AwardFreePoint: command('AwardFreePoint', { userId: id, adViewStartedAt: now }),
  /** Credits a purchase the payment provider has captured; once per capture id. */
  CreditPurchase: command('CreditPurchase', {
    userId: id,
    provider: z.enum(['paypal', 'simulated']),
    orderId: id,
    captureId: id,
    amountUsd: z.number().positive(),
    points: z.number().int().positive(),
  }),
  /** Takes back the points of a refunded or reversed capture (payment provider webhook); once per capture id. */
  ReversePurchase: command('ReversePurchase', {
    userId: id,
    captureId: id,
    reason: z.enum(['refunded', 'reversed']),
  }),
  /** The provider refunded `amountUsd` of a credited capture (part or the rest of it) as `refundId`. */
  RefundPurchase: command('RefundPurchase', {
    userId: id,
    captureId: id,
    refundId: id,
    amountUsd: z.number().positive(),
  }),
  /** Second step of a claim: the passes were reserved on the pool as `reservationId` at `reservedAt`. */
  RecordPassesClaim: command('RecordPassesClaim', {
    userId: id,
    reservationId: id,
    passes: z.number().int().positive(),
    /** ISO time the pool recorded the reservation (PassesReserved.reservedAt). */
    reservedAt: z.iso.datetime(),
  }),
  PostCertificate: command('PostCertificate', {
    userId: id,
    fullname: z.string(),
    country: z.string(),
    email: z.string(),
    link: z.string(),
    /** Omitted on an update that keeps the current image. */
    image: imageSchema.optional(),
    message: z.string(),
  }),
  SendChatMessage: command('SendChatMessage', { userId: id, messageId: id, message: z.string() }),
  DeleteMemberPost: command('DeleteMemberPost', { userId: id, deletedBy: id }),
  /** The member sets a new password (the route has checked the current one). */
  ChangePassword: command('ChangePassword', { userId: id, passwordHash: z.string().min(1) }),
  /**
   * Sets a new password with a mailed reset link whose signature the route has checked: `issuedAt`
   * is when the link was made, `tokenHash` the SHA-256 of its secret (recorded, never the secret).
   */
  ResetPassword: command('ResetPassword', { userId: id, tokenHash: z.string().min(1), passwordHash: z.string().min(1), issuedAt: z.iso.datetime() }),
  /** Erases the member's personal data (the store destroys their key once MemberErased is stored). */
  EraseMember: command('EraseMember', { userId: id, requestedBy: z.enum(['member', 'admin']), adminId: id.optional() }),
} as const;

// ---- email-{hash} ---------------------------------------------------------------------------
export const emailCommandSchemas = {
  ReserveEmail: command('ReserveEmail', { email: z.string().min(1), userId: id }),
  /** Frees the e-mail of an erased member (a no-op when another member holds it). */
  ReleaseEmail: command('ReleaseEmail', { userId: id }),
} as const;

// ---- passes-pool ----------------------------------------------------------------------------
export const poolCommandSchemas = {
  SetPassSupply: command('SetPassSupply', { available: z.number().int().nonnegative(), setBy: id }),
  /** First start only: sets the supply unless one was ever set (a no-op afterwards). */
  InitializePassSupply: command('InitializePassSupply', { available: z.number().int().nonnegative(), setBy: id }),
  ReservePasses: command('ReservePasses', { reservationId: id, userId: id, passes: z.number().int().positive() }),
  ConfirmPassReservation: command('ConfirmPassReservation', { reservationId: id }),
  ReleasePassReservation: command('ReleasePassReservation', { reservationId: id, reason: z.string().min(1) }),
} as const;

// ---- site -----------------------------------------------------------------------------------
export const siteCommandSchemas = {
  EditMainData: command('EditMainData', {
    cpm: z.number().nonnegative(),
    donations: z.number().nonnegative(),
    startDate: z.string(),
    editedBy: id,
  }),
  ResetAdViews: command('ResetAdViews', { views: z.number().int().nonnegative(), resetBy: id }),
  ClearChat: command('ClearChat', { clearedBy: id }),
  /** First start only: records the start date unless main data was ever edited (a no-op afterwards). */
  InitializeSite: command('InitializeSite', { startDate: z.string(), initializedBy: id }),
} as const;

// ---- admin-{id} -----------------------------------------------------------------------------
export const adminCommandSchemas = {
  RegisterAdmin: command('RegisterAdmin', { adminId: id, email: z.string().min(1), passwordHash: z.string().min(1) }),
} as const;

type Union<S extends Record<string, z.ZodType>> = { [K in keyof S]: z.infer<S[K]> }[keyof S];

export type UserCommand = Union<typeof userCommandSchemas>;
export type EmailCommand = Union<typeof emailCommandSchemas>;
export type PoolCommand = Union<typeof poolCommandSchemas>;
export type SiteCommand = Union<typeof siteCommandSchemas>;
export type AdminCommand = Union<typeof adminCommandSchemas>;
export type Command = UserCommand | EmailCommand | PoolCommand | SiteCommand | AdminCommand;

export const commandSchemas = {
  ...userCommandSchemas,
  ...emailCommandSchemas,
  ...poolCommandSchemas,
  ...siteCommandSchemas,
  ...adminCommandSchemas,
} as const;
export type CommandType = keyof typeof commandSchemas;
export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;
