/**
 * AES-256-GCM under a member's key, a random 12-byte IV, and the member id, event type and a
 * label (`*` for an event's sealed fields) as additional data, so a value copied into another
 * member's event or another type does not decrypt. Stored as text in the event:
 * `pd1:<base64 of iv | tag | ciphertext>`.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomFillSync } from 'node:crypto';

export const ENCRYPTED_PREFIX = 'pd1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX);
}

export function newKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

// Keys go to the cipher as raw bytes: importing one as a KeyObject costs more than it saves for a
// member met two or three times in a catch-up (docs/benchmarks/history/personal-data.md, "Second round").
// IVs are cut from a pool of random bytes refilled 4,096 IVs at a time (one system call, not one each).
const ivPool = Buffer.alloc(IV_BYTES * 4096);
let ivOffset = ivPool.length;
function nextIv(): Buffer {
  if (ivOffset >= ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  ivOffset += IV_BYTES;
  return ivPool.subarray(ivOffset - IV_BYTES, ivOffset);
}

function aad(memberId: string, type: string, field: string): Buffer {
  // Lengths first: ('ab','c') and ('a','bc') must not give the same bytes.
  return Buffer.from(`${memberId.length}:${memberId}|${type.length}:${type}|${field}`, 'utf8');
}

export function encryptField(key: Buffer, memberId: string, type: string, field: string, plaintext: string): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(memberId, type, field));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ENCRYPTED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

/** Throws when the key, the member, the type, the field or the bytes are not the ones it was written with. */
export function decryptField(key: Buffer, memberId: string, type: string, field: string, value: string): string {
  const raw = Buffer.from(value.slice(ENCRYPTED_PREFIX.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new PersonalDataError(`Encrypted ${type}.${field} is truncated`);
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(aad(memberId, type, field));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    // GCM is a stream mode: update gives every byte, final only checks the tag (and adds none).
    const text = decipher.update(raw.subarray(IV_BYTES + TAG_BYTES), undefined, 'utf8');
    return text + decipher.final('utf8');
  } catch (error) {
    throw new PersonalDataError(`Encrypted ${type}.${field} does not verify under its member's key`, { cause: error });
  }
}

/** A personal field that cannot be read back: tampered bytes or the wrong key (never "erased": that reads as empty). */
export class PersonalDataError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PersonalDataError';
  }
}
