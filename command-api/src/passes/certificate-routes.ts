import { LIMITS, streams, type CommandContext, type Image, type Principal, type RegisterSpecialUserResponse } from '@pass/events';
import { Router, type Request, type Response } from 'express';
import multer from 'multer';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import type { CommandServices } from '../kernel/services';
import { userDecider } from '../members/decider';
import { toUserView } from '../members/view';
import { removeImage } from '../uploads/process-image';
import { checkCertificateForm, type CertificateForm } from './certificate-form';
import { claimPasses } from './claim';
import { poolDecider } from './pool-decider';

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

/** Claims the form's passes and posts the card; a stored image is removed again if either is refused. */
async function claimAndPost(s: CommandServices, member: Principal, form: CertificateForm, ctx: CommandContext): Promise<RegisterSpecialUserResponse> {
  let image: Image | undefined;
  if (form.file) image = await s.images.processImage(form.file.buffer);
  try {
    if (form.passes > 0) await claimPasses(s, member.id, form.passes, ctx);
    const { state } = await s.handler.handle(
      userDecider,
      streams.user(member.id),
      { type: 'PostCertificate', data: { userId: member.id, ...form.fields, ...(image ? { image } : {}) }, now: s.clock() },
      ctx,
    );
    return { id: state.userId, user: toUserView(state) };
  } catch (error) {
    if (image) await removeImage(s.uploadsDir, image).catch(() => undefined);
    throw error;
  }
}

export function certificateRoutes(s: CommandServices): Router {
  const router = Router();

  /**
   * The post form + amount form (spec §4 "Pass claim"): posts or updates the member's
   * certificate and claims `passes` (0 only to update an existing certificate).
   */
  router.post('/api/register-special-user', async (req, res) => {
    const member = requireUser(res);
    if (!req.is('multipart/form-data')) throw new HttpError(400, 'Send the form as multipart/form-data');
    await runUpload(req, res);
    const ctx = commandContext(req, member, s.clock);
    const [{ state: user }, { state: pool }] = await Promise.all([
      s.handler.load(userDecider, streams.user(member.id)),
      s.handler.load(poolDecider, streams.passesPool),
    ]);
    if (!user.exists) throw new HttpError(401, 'Please join to continue');
    const form = checkCertificateForm((req.body ?? {}) as Record<string, unknown>, req.file, user, pool);
    res.json(await claimAndPost(s, member, form, ctx));
  });

  return router;
}
