import { DomainError, LIMITS, streams, type CommandContext, type Image, type Principal, type RegisterSpecialUserResponse, type UserEvent } from '@pass/events';
import { Router, type Request, type Response } from 'express';
import multer from 'multer';
import { requireUser } from '../http/auth';
import { commandContext } from '../http/context';
import { HttpError } from '../http/errors';
import { CommandRejectedByConflicts, type Handled } from '../kernel/command-handler';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import type { UserState } from '../members/state';
import { toUserView } from '../members/view';
import { adoptImage, markCardChange, withdrawReplacedImage, type CardChange } from '../uploads/card-images';
import { removeImage } from '../uploads/process-image';
import { checkCertificateForm, type CertificateForm } from './certificate-form';
import { claimPasses } from './claim';
import { poolDecider } from '../passes-pool/decider';

const upload = multer({
  storage: multer.memoryStorage(),
  // The 2 MB rule (docs/product.md §5) is enforced while reading: a bigger file is never buffered whole.
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

/** Nothing was appended: a refusal, or a stream that kept changing. Any other failure may have been. */
const nothingAppended = (error: unknown) => error instanceof DomainError || error instanceof CommandRejectedByConflicts;

/**
 * Claims the form's passes and posts the card. A stored image is removed again when either is
 * refused, and the change settles; when the post's append has an unknown outcome the change
 * stays marked for the orphan sweep.
 */
async function claimAndPost(services: CommandServices, member: Principal, form: CertificateForm, change: CardChange, ctx: CommandContext): Promise<Handled<UserState, UserEvent>> {
  let image: Image | undefined;
  let posting = false;
  try {
    image = form.file ? await adoptImage(services.uploadsDir, await services.images.processImage(form.file.buffer), member.id) : undefined;
    if (form.passes > 0) await claimPasses(services, member.id, form.passes, ctx);
    posting = true;
    const command = { type: 'PostCertificate' as const, data: { userId: member.id, ...form.fields, ...(image ? { image } : {}) }, now: services.clock() };
    return await services.handler.handle(userDecider, streams.user(member.id), command, ctx);
  } catch (error) {
    if (!posting || nothingAppended(error)) {
      try {
        if (image) await removeImage(services.uploadsDir, image);
        await change.settle();
      } catch (cause) {
        services.logger.warn({ err: cause }, 'a refused upload could not be removed; the next orphan sweep will');
      }
    }
    throw error;
  }
}

export function certificateRoutes(services: CommandServices): Router {
  const router = Router();

  /**
   * The post form + amount form (docs/product.md §4 "Pass claim"): posts or updates the member's
   * certificate and claims `passes` (0 only to update an existing certificate).
   */
  router.post('/api/register-special-user', async (req, res) => {
    const member = requireUser(res);
    if (!req.is('multipart/form-data')) throw new HttpError(400, 'Send the form as multipart/form-data');
    await runUpload(req, res);
    const ctx = commandContext(req, member, services.clock);
    const [{ state: user }, { state: pool }] = await Promise.all([
      services.handler.load(userDecider, streams.user(member.id)),
      services.handler.load(poolDecider, streams.passesPool),
    ]);
    if (!user.exists) throw new HttpError(401, 'Please join to continue');
    const form = checkCertificateForm((req.body ?? {}) as Record<string, unknown>, req.file, user, pool);
    const change = await markCardChange(services.uploadsDir, member.id);
    const posted = await claimAndPost(services, member, form, change, ctx);
    // Acknowledged: the image the card showed before is withdrawn (a member holds one).
    const deps = { store: services.handler.store, uploadsDir: services.uploadsDir, logger: services.logger };
    if (await withdrawReplacedImage(deps, streams.user(member.id), posted, posted.state.certificate?.image)) await change.settle();
    const response: RegisterSpecialUserResponse = { id: posted.state.userId, user: toUserView(posted.state) };
    res.json(response);
  });

  return router;
}
