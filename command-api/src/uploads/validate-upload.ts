import { IMAGE_MESSAGES, imageFileProblem } from '@pass/events';
import { HttpError } from '../http/errors';
import { sniffContentType } from './content-type';

export interface UploadedFile {
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

const refuse = (message: string) => new HttpError(400, message, { image: message });

/**
 * The image rules of docs/product.md §5 on an upload: first what the client declares (the shared rule the
 * web form also runs), then what the bytes are. A renamed PDF or executable is refused as one.
 */
export function checkImageUpload(file: UploadedFile): void {
  const declared = imageFileProblem({ name: file.originalname, type: file.mimetype, size: file.size });
  const sniffed = sniffContentType(file.buffer);
  if (sniffed === 'pdf' || sniffed === 'executable') throw refuse(IMAGE_MESSAGES.forbidden);
  if (declared) throw refuse(declared);
  if (sniffed === 'unknown') throw refuse(IMAGE_MESSAGES.notImage);
}
