import type { CommandGateway, GatewayResult, Principal, RequestContext } from '@pass/events';
import { toApiFailure } from '../http/errors';
import type { Clock } from '../kernel/clock';
import type { CommandServices } from '../services';
import { sendChatMessage } from '../chat/actions';
import { awardFreePoint } from '../free-points/actions';
import { currentUser } from '../members/current-user';

/**
 * The in-process CommandGateway: query-api's sockets send chat messages and ask for free points
 * through the same actions as the HTTP routes, and get the status the route would have answered.
 */
export function createInProcessGateway(services: CommandServices, clock: Clock): CommandGateway {
  const context = (user: Principal, ctx: RequestContext) => ({
    correlationId: ctx.correlationId,
    causationId: ctx.correlationId,
    actor: { type: 'user' as const, id: user.id },
    now: clock(),
  });
  async function run<T>(user: Principal, work: () => Promise<T>): Promise<GatewayResult<T>> {
    if (user.kind !== 'user') return { ok: false, status: 401, error: 'Please join to continue' };
    try {
      return { ok: true, data: await work() };
    } catch (error) {
      const failure = toApiFailure(error);
      if (failure.status >= 500) services.logger.error({ err: error }, 'gateway command failed');
      const { error: message, retryAfterSeconds } = failure.body;
      return { ok: false, status: failure.status, error: message, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) };
    }
  }
  return {
    sendChatMessage: (user, draft, ctx) => run(user, () => sendChatMessage(services, user, draft, context(user, ctx), ctx.clientAddress)),
    awardFreePoint: (user, request, ctx) => run(user, () => awardFreePoint(services, user, request, context(user, ctx), ctx.clientAddress)),
    currentUser: (user) => run(user, () => currentUser(services, user)),
  };
}
