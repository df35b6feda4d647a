import type { Response } from 'express';

/** A JSON body serialised once and shared by every request while the read models stand still. */
export interface PreparedJson {
  /** The UTF-8 JSON text, exactly as `res.json` would have produced it. */
  readonly bytes: Buffer;
}

/** The JSON text of `value` as bytes, to be sent as many times as needed. */
export function prepareJson(value: unknown): PreparedJson {
  return { bytes: Buffer.from(JSON.stringify(value) ?? '') };
}

/**
 * A read's answer before it is written, the same whichever lane writes it: a value to send as
 * JSON, or a body already serialised (a shared one; the lane may keep derived data, such as its
 * ETag, for as long as it is handed the same object).
 */
export type ReadAnswer = { status: number; body: unknown } | { status: number; prepared: PreparedJson };

/** A public GET (no session) served by Express and by the fast lane with this one function. */
export interface ReadRoute {
  path: string;
  /** `query`: the request's query as the app's query parser gives it (Express's `req.query`). */
  answer(query: unknown): Promise<ReadAnswer>;
}

/** query-api's hot public reads, with what a lane needs around them (infra/src/http/fast-lane.ts). */
export interface ReadLane {
  method: 'GET';
  routes: readonly ReadRoute[];
  /** The answer to a failed read (503), logged as the Express handler logs it. */
  failureOf(error: unknown, path: string): ReadAnswer;
  /** Records a finished read in the query latency histogram, as the Express timing middleware does. */
  observe(path: string, status: number, seconds: number): void;
}

/** Writes `answer` through Express (`res.json`, or `res.send` of the prepared bytes with res.json's type). */
export function sendReadAnswer(res: Response, answer: ReadAnswer): void {
  res.status(answer.status);
  if ('prepared' in answer) {
    res.set('Content-Type', 'application/json; charset=utf-8');
    res.send(answer.prepared.bytes);
  } else {
    res.json(answer.body);
  }
}
