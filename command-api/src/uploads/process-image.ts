import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { IMAGE_MESSAGES, type Image } from '@pass/events';
import sharp from 'sharp';
import { HttpError } from '../http/errors';

/** Largest side of a stored image: the sponsor cards and the certificate never show more. */
export const MAX_IMAGE_SIDE = 1024;
/** Refuses decompression bombs before decoding (a 2 MB file can claim gigapixels). */
const MAX_INPUT_PIXELS = 40_000_000;
/** Where processed images wait, nobody's, until a post adopts one (card-images.ts). */
export const INCOMING_DIR = 'incoming';

/** The bytes are no image sharp can read: answered 400 on the form's image field. */
export class ImageDecodeError extends HttpError {
  constructor(cause: unknown) {
    super(400, IMAGE_MESSAGES.notImage, { image: IMAGE_MESSAGES.notImage }, {}, { cause });
    this.name = 'ImageDecodeError';
  }
}

/**
 * Re-encodes an upload as WebP under `uploadsDir`: auto-rotated, at most MAX_IMAGE_SIDE on a
 * side, every metadata block (EXIF with GPS, XMP, ICC) dropped — sharp keeps none unless asked.
 * Only the re-encoded pixels are stored, under a generated name, never the client's bytes or name.
 */
export async function processImage(uploadsDir: string, input: Buffer): Promise<Image> {
  let output: Buffer;
  try {
    output = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 82 })
      .toBuffer();
  } catch (error) {
    throw new ImageDecodeError(error);
  }
  const id = randomUUID().replaceAll('-', '');
  const path = `${INCOMING_DIR}/${id}.webp`;
  const file = uploadPath(uploadsDir, path)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, output, { flag: 'wx' });
  return { path, public_id: id, url: `/uploads/${path}` };
}

/** The file of `path` under the uploads folder; undefined for a path that would leave it. */
export function uploadPath(uploadsDir: string, path: string): string | undefined {
  const root = resolve(uploadsDir);
  const file = resolve(root, path);
  return file.startsWith(root + sep) ? file : undefined;
}

/** Removes a stored image (refused, replaced or deleted); a missing one is already gone. */
export async function removeImage(uploadsDir: string, image: Image): Promise<void> {
  const file = uploadPath(uploadsDir, image.path);
  if (file) await rm(file, { force: true });
}
