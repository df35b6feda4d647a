import {
  IMAGE_MESSAGES,
  LIMITS,
  amountFormSchema,
  isSafeLink,
  postFieldsSchema,
  streams,
  type Image,
  type RegisterSpecialUserResponse,
} from '@pass/events';
import { Router, type Request, type Response } from 'express';
import multer from 'multer';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../kernel/services';
import { claimPasses } from '../passes/claim';
import { freePasses, poolDecider } from '../passes/pool-decider';
import { removeImage } from '../uploads/process-image';
import { checkImageUpload } from '../uploads/validate-upload';
import { userDecider } from './decider';
import { toUserView } from './view';

const upload = multer({
  storage: multer.memoryStorage(),
  // The 2 MB rule (spec §5) is enforced while reading: a bigger file is never buffered whole.
  limits: { fileSize: LIMITS.imageMaxBytes, files: 1, fields: 12, fieldSize: 4 * 1024, parts: 14 },
});

function runUpload(req: Request, res: Response): Promise<void> {
  return new Promise((done, fail) =>
    upload.single('image')(req, res, (error: unknown) => {
      if (!error) return done();
      // multer's own limits answer with their messages; anything else is a body busboy could not read.
      fail(error instanceof multer.MulterError ? error : new HttpError(400, 'The form could not be read. Please try again.'));
    }),
  );
}

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);

export function certificateRoutes(s: CommandServices): Router {
  const router = Router();

  /**
   * The post form + amount form (spec §4 "Pass claim"): posts or updates the member's
   * certificate and claims `passes` (0 only to update an existing certificate).
   */
  router.post('/api/register-special-user', async (req, res) => {
    const principal = requireUser(res);
    if (!req.is('multipart/form-data')) throw new HttpError(400, 'Send the form as multipart/form-data');
    await runUpload(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ctx = commandContext(req, principal, s.clock);

    const [{ state: user }, { state: pool }] = await Promise.all([
      s.handler.load(userDecider, streams.user(principal.id)),
      s.handler.load(poolDecider, streams.passesPool),
    ]);
    if (!user.exists) throw new HttpError(401, 'Please join to continue');

    const fields: Record<string, string> = {};
    const text = postFieldsSchema({ registeredEmail: user.email }).safeParse({
      fullname: field(body, 'fullname'),
      country: field(body, 'country'),
      email: field(body, 'email'),
      link: field(body, 'link'),
      message: field(body, 'message'),
    });
    if (!text.success) for (const issue of text.error.issues) fields[String(issue.path[0])] ??= issue.message;
    if (text.success && !isSafeLink(text.data.link)) fields.link = 'Please enter a valid link';

    const passesRaw = field(body, 'passes') ?? '0';
    const passes = Number(passesRaw);
    if (passesRaw.trim() !== '0' || !user.certificate) {
      const amount = amountFormSchema(freePasses(pool), user.points).safeParse({ passes: passesRaw });
      if (!amount.success) fields.passes = amount.error.issues[0]?.message ?? 'Please choose at least 1 pass';
    }

    const file = req.file;
    if (file && file.size === 0) {
      fields.image = IMAGE_MESSAGES.required;
    } else if (file) {
      try {
        checkImageUpload(file);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        fields.image = error.message;
      }
    } else if (!user.certificate) {
      fields.image = IMAGE_MESSAGES.notChosen;
    }
    if (Object.keys(fields).length > 0 || !text.success) {
      throw new HttpError(400, Object.values(fields)[0] ?? 'Please check the form', fields);
    }

    let image: Image | undefined;
    if (file) image = await s.images.processImage(file.buffer);
    try {
      if (passes > 0) await claimPasses(s, principal.id, passes, ctx);
      const { state } = await s.handler.handle(
        userDecider,
        streams.user(principal.id),
        { type: 'PostCertificate', data: { userId: principal.id, ...text.data, ...(image ? { image } : {}) }, now: s.clock() },
        ctx,
      );
      const answer: RegisterSpecialUserResponse = { id: state.userId, user: toUserView(state) };
      res.json(answer);
    } catch (error) {
      if (image) await removeImage(s.uploadsDir, image).catch(() => undefined);
      throw error;
    }
  });

  return router;
}
