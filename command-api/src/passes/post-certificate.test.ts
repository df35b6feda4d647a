import { describe, expect, it } from 'vitest';
import { userDecider } from '../members/decider';
import { image, memberSpec as spec, postCertificate, registered, t0, userId } from '../test-support/member-events';

describe('user: certificate', () => {
  const post = postCertificate;
  it('posts a first certificate', () => {
    spec.given([registered]).when(post()).then([
      { type: 'CertificatePosted', data: { userId, fullname: 'Ana', country: 'Spain', email: 'ana@example.com', link: 'https://ana.example.com', image, message: 'Hello all', postedAt: t0.toISOString() } },
    ]);
  });
  it('updates an existing one, keeping the image when none is sent', () => {
    const first = userDecider.decide(post(), userDecider.evolve(userDecider.initialState(), registered));
    spec.given([registered, ...first]).when(post({ fullname: 'Ana B', image: undefined })).thenState((state) => {
      expect(state.certificate).toMatchObject({ fullname: 'Ana B', image });
    });
  });
  it('refuses an email other than the registered one', () => {
    const error = spec.given([registered]).when(post({ email: 'other@example.com' })).thenThrows('invalid');
    expect(error.details.fields).toEqual({ email: 'Your email must match the one registered' });
  });
  it('refuses a first post without an image', () => {
    spec.given([registered]).when(post({ image: undefined })).thenThrows('invalid', /Please select an image\./);
  });
});
