import { DomainError, EventStoreUnavailableError, IMAGE_MESSAGES, fieldMessages, httpStatusOf, type ApiError } from '@pass/events';
import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import multer from 'multer';
import { ZodError } from 'zod';
import { CommandRejectedByConflicts } from '../kernel/command-handler';

/**
 * An error the HTTP layer answers with a status other than 500: its status, message (the body's
 * `error`), fields and headers are the answer. Errors of the capabilities and the platform that
 * deserve their own answer extend it (`PaymentProviderError`, `ImageDecodeError`), so this layer
 * knows none of them.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

export interface ApiFailure {
  status: number;
  body: ApiError;
  headers: Record<string, string>;
}

/** The one translation of every failure into the API's `{ error, fields? }` answer. */
export function toApiFailure(error: unknown): ApiFailure {
  if (error instanceof HttpError) {
    return { status: error.status, body: withFields(error.message, error.fields), headers: error.headers };
  }
  if (error instanceof DomainError) {
    const status = httpStatusOf(error.code);
    const body = withFields(error.message, error.details.fields);
    const wait = error.details.retryAfterSeconds;
    if (!wait) return { status, body, headers: {} };
    // The wait in the body too: the web's toast says it, and the socket gateways pass it on.
    return { status, body: { ...body, retryAfterSeconds: wait }, headers: { 'Retry-After': String(wait) } };
  }
  if (error instanceof ZodError) {
    const fields = fieldMessages(error);
    return { status: 400, body: { error: Object.values(fields)[0] ?? 'Invalid request', fields }, headers: {} };
  }
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') return { status: 400, body: { error: IMAGE_MESSAGES.tooLarge, fields: { image: IMAGE_MESSAGES.tooLarge } }, headers: {} };
    return { status: 400, body: { error: 'The upload is not valid' }, headers: {} };
  }
  if (error instanceof EventStoreUnavailableError) {
    return { status: 503, body: { error: 'The service is temporarily unavailable, please try again' }, headers: { 'Retry-After': '5' } };
  }
  if (error instanceof CommandRejectedByConflicts) {
    return { status: 503, body: { error: 'The service is busy, please try again' }, headers: { 'Retry-After': '1' } };
  }
  const bodyParserError = error as { type?: string; status?: number } | null;
  if (bodyParserError?.type === 'entity.parse.failed') return { status: 400, body: { error: 'The request body is not valid JSON' }, headers: {} };
  if (bodyParserError?.type === 'entity.too.large') return { status: 413, body: { error: 'The request is too large' }, headers: {} };
  return { status: 500, body: { error: 'Something went wrong, please try again' }, headers: {} };
}

function withFields(error: string, fields: Record<string, string> | undefined): ApiError {
  return fields && Object.keys(fields).length > 0 ? { error, fields } : { error };
}

/** `toApiFailure`, and the error in the request's log when it is the server's fault. */
export function failureOf(error: unknown, req: IncomingMessage): ApiFailure {
  const failure = toApiFailure(error);
  if (failure.status >= 500) req.log?.error({ err: error }, 'command request failed');
  return failure;
}

export const apiErrorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const failure = failureOf(error, req);
  if (res.headersSent) return;
  res.status(failure.status).set(failure.headers).json(failure.body);
};
