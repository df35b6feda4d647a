import { describe, expect, it } from 'vitest';
import { userDecider } from '../members/decider';
import { memberSpec as spec, postCertificate, registered, t0, userId } from '../test-support/member-events';

describe('admin: delete a member post', () => {
  const post = postCertificate;
  it('lets the admin delete a post, and refuses deleting a post that is not there', () => {
    const posted = userDecider.decide(post(), userDecider.evolve(userDecider.initialState(), registered));
    spec.given([registered, ...posted]).when({ type: 'DeleteMemberPost', data: { userId, deletedBy: 'admin-1' }, now: t0 }).thenState((state) => expect(state.certificate).toBeNull());
    spec.given([registered]).when({ type: 'DeleteMemberPost', data: { userId, deletedBy: 'admin-1' }, now: t0 }).thenThrows('not_found');
  });
});
