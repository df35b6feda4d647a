import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { COUNTRIES, DEFAULT_COUNTRY, PRODUCT_NAME, contentPath, type UserView } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { JoinRedirect } from '../../components/JoinRedirect';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { selectHasUserOrStored, selectUser } from '../../lib/state/session-selectors';
import { postFormResolver, type PostFormState, type PostFormValues } from './post-form';
import { POST_FORM_FIELDS, POST_FORM_RETURNED, postFormReturnOf } from './post-form-return';

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

/**
 * The post form over the member's fields, or over the fields as typed when the claim sent the
 * form back (`returned`) with the server's messages.
 */
function usePostForm(user: UserView, returned: ReturnType<typeof postFormReturnOf>) {
  const form = useForm<PostFormValues>({
    resolver: postFormResolver(user.email),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: returned ? { ...returned.fields, image: null } : memberFields(user),
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
    if (!user.email || returned) return;
    reset(memberFields(user));
  }, [user.id, user.email, user.fullname, user.country, user.link, user.message, reset, returned]);

  return form;
}

/** Get or update the certificate (docs/product.md §2 /content/post); submitting goes to /content/amount. */
export default function PostPage() {
  useTitle(`Get my pass · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const user = useAppSelector(selectUser);
  const allowed = useAppSelector(selectHasUserOrStored);
  // Sent back by the claim: the server refused a field (pass-claim/sagas.ts).
  const returned = postFormReturnOf(useLocation().state);
  const { register, handleSubmit, formState } = usePostForm(user, returned);

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
    navigate(contentPath('amount'), { state });
  };
  const e = formState.errors;

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
          <input type="file" accept="image/*" {...register('image')} />
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
