import { DomainError, streams, type AdViewTicketResponse, type CommandContext, type FreePointResponse, type Principal } from '@pass/events';
import type { CommandServices } from '../services';
import { userDecider } from '../members/decider';
import { toUserView } from '../members/view';

/** The free point's actions, shared by the HTTP routes and the Socket.IO gateway. */

/** The ticket for the countdown that starts now (on the business clock the award is decided on). */
export function issueAdViewTicket(services: CommandServices, user: Principal, ctx: CommandContext): AdViewTicketResponse {
  return services.adViews.issue(user.id, ctx.now);
}

export const NO_AD_VIEW = 'Watch the free-point countdown on the free points page to earn a point';

/** Awards the point a countdown's ticket earns; the decider holds the time rules. */
export async function awardFreePoint(
  services: CommandServices,
  user: Principal,
  request: unknown,
  ctx: CommandContext,
  clientAddress?: string,
): Promise<FreePointResponse> {
  await services.actions.enforce('freePoint', user.id, clientAddress);
  const ticket = (request as { ticket?: unknown } | null | undefined)?.ticket;
  const adViewStartedAt = services.adViews.startedAt(user.id, ticket);
  if (!adViewStartedAt) throw new DomainError('invalid', NO_AD_VIEW, { fields: { ticket: NO_AD_VIEW } });
  const { state } = await services.handler.handle(
    userDecider,
    streams.user(user.id),
    { type: 'AwardFreePoint', data: { userId: user.id, adViewStartedAt }, now: ctx.now },
    ctx,
  );
  return { user: toUserView(state) };
}
