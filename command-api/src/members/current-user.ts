import { streams, type Principal, type UserView } from '@pass/events';
import type { CommandServices } from '../services';
import { userDecider } from './decider';
import { requireRegistered } from './state';
import { toUserView } from './view';

/** The session's member as the spec's user model (GET /api/verify-access, the sockets' currentUser). */
export async function currentUser(services: CommandServices, user: Principal): Promise<UserView> {
  const { state } = await services.handler.load(userDecider, streams.user(user.id));
  requireRegistered(state);
  return toUserView(state);
}
