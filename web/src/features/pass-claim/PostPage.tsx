import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useNavigationType } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { COUNTRIES, DEFAULT_COUNTRY, PRODUCT_NAME, contentPath, type UserView } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { JoinRedirect } from '../../components/JoinRedirect';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { selectHasUserOrStored, selectUser } from '../../lib/state/session-selectors';
import { postFormResolver, type PostFormState, type PostFormValues } from './post-form';
import { POST_FORM_FIELDS, POST_FORM_RETURNED, postFormReturnOf, rememberSentPostForm, sentPostForm } from './post-form-return';

/** The form's fields as the server knows the member (the image is always chosen anew). */
function memberFields(user: UserView): PostFormValues {
  return {
    fullname: user.fullname,
    country: user.country || DEFAULT_COUNTRY,
    email: user.email,
    link: user.link,
    message: user.message,
    image: null,
  };
}

/** A chosen file as a file input holds it, where the browser can build one (not jsdom). */
function fileListOf(file: File): FileList | null {
  if (typeof DataTransfer !== 'function') return null;
  const transfer = new DataTransfer();
  transfer.items.add(file);
  return transfer.files;
}

/**
 * The image of a form opened by browser Back from the amount step, put back in its file input
 * (which only a FileList can fill). Returns the ref the image input also takes.
 */
function useDraftImage(draft: PostFormState | null, setValue: (name: 'image', files: FileList) => void) {
  const input = useRef<HTMLInputElement | null>(null);
  useEffect(() => {
    const files = draft && fileListOf(draft.image);
    if (!files) return;
    // The form's value first: setting it empties the input, which then takes the files.
    setValue('image', files);
    if (input.current) input.current.files = files;
  }, [draft, setValue]);
  return input;
}

/**
 * The post form over the member's fields, over the fields as typed when the claim sent the form
 * back (`returned`) with the server's messages, or over the form as sent when the member came
 * back from the amount step (`draft`).
 */
function usePostForm(user: UserView, returned: ReturnType<typeof postFormReturnOf>, draft: PostFormState | null) {
  const typed = returned?.fields ?? draft?.fields;
  const form = useForm<PostFormValues>({
    resolver: postFormResolver(user.email),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: typed ? { ...typed, image: null } : memberFields(user),
  });
  const { reset, setError, setFocus } = form;

  // Sent back with the server's messages (the form opened with the fields as typed): each beside
  // its field, the first one focused.
  useEffect(() => {
    if (!returned) return;
    const refused = POST_FORM_FIELDS.filter((name) => returned.errors[name]);
    for (const name of refused) setError(name, { type: 'server', message: returned.errors[name] ?? '' });
    if (refused[0]) setFocus(refused[0]);
  }, [returned, setError, setFocus]);

  // The user may arrive after the page opened (fetched from the stored id): fill the form then.
  useEffect(() => {
    if (!user.email || returned || draft) return;
    reset(memberFields(user));
  }, [user.id, user.email, user.fullname, user.country, user.link, user.message, reset, returned, draft]);

  return form;
}

/** Get or update the certificate (docs/product.md §2 /content/post); submitting goes to /content/amount. */
export default function PostPage() {
  useTitle(`Get my pass · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const user = useAppSelector(selectUser);
  const allowed = useAppSelector(selectHasUserOrStored);
  const location = useLocation();
  // Sent back by the claim: the server refused a field (pass-claim/sagas.ts).
  const returned = postFormReturnOf(location.state);
  // Browser Back onto this entry: the form as it was sent from it, read once as the page opens.
  const popped = useNavigationType() === 'POP';
  const [draft] = useState(() => (popped && !returned ? sentPostForm(location.key) : null));
  const { register, handleSubmit, formState, setValue } = usePostForm(user, returned, draft);
  const imageInput = useDraftImage(draft, setValue);

  useEffect(() => {
    dispatch(pageEntered('post'));
    return () => void dispatch(pageLeft('post'));
  }, [dispatch]);

  if (!allowed) return <JoinRedirect reason="post" />;

  const onSubmit = (values: PostFormValues) => {
    const image = values.image?.[0];
    if (!image) return;
    const { image: _files, ...fields } = values;
    const state: PostFormState = { fields, image };
    rememberSentPostForm({ entryKey: location.key, form: state });
    navigate(contentPath('amount'), { state });
  };
  const e = formState.errors;
  const imageField = register('image');

  return (
    <section className="panel narrow" aria-labelledby="post-title">
      <h1 id="post-title">{user.passes > 0 ? 'Update your certificate' : `Get your ${PRODUCT_NAME}`}</h1>
      {returned && <p className="form-error" role="alert">{POST_FORM_RETURNED}</p>}
      <form noValidate onSubmit={handleSubmit(onSubmit)}>
        <Field label="Full name" error={e.fullname?.message}>
          <input autoComplete="name" {...register('fullname')} />
        </Field>
        <Field label="Country" error={e.country?.message}>
          <select {...register('country')}>
            {COUNTRIES.map((c) => (
              <option key={c} value={c}>{c}</option>
            ))}
          </select>
        </Field>
        <Field label="Email" error={e.email?.message}>
          <input type="email" autoComplete="email" {...register('email')} />
        </Field>
        <Field label="Personal link" error={e.link?.message}>
          <input type="url" placeholder="https://" {...register('link')} />
        </Field>
        <Field label="Image" error={e.image?.message} hint="An image up to 2MB">
          <input type="file" accept="image/*" {...imageField} ref={(el) => {
            imageField.ref(el);
            imageInput.current = el;
          }} />
        </Field>
        <Field label="Message" error={e.message?.message}>
          <textarea rows={3} {...register('message')} />
        </Field>
        <button type="submit" className="button primary">
          {user.passes <= 0 ? `Get ${PRODUCT_NAME}!` : 'Update Certificate!'}
        </button>
      </form>
    </section>
  );
}
