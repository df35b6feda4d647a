import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Image } from '@pass/events';
import sharp from 'sharp';

/** Largest side of a stored image: the sponsor cards and the certificate never show more. */
export const MAX_IMAGE_SIDE = 1024;
/** Refuses decompression bombs before decoding (a 2 MB file can claim gigapixels). */
const MAX_INPUT_PIXELS = 40_000_000;

export class ImageDecodeError extends Error {
  constructor(cause: unknown) {
    super('The image could not be read', { cause });
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
  const path = `${id.slice(0, 2)}/${id}.webp`;
  const file = join(resolve(uploadsDir), ...path.split('/'));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, output, { flag: 'wx' });
  return { path, public_id: id, url: `/uploads/${path}` };
}

/** Removes a stored image (a claim failed after the upload was processed). */
export async function removeImage(uploadsDir: string, image: Image): Promise<void> {
  const root = resolve(uploadsDir);
  const file = resolve(root, image.path);
  if (!file.startsWith(root + sep)) return;
  await rm(file, { force: true });
}
