import { assertNever, evolveUser, isEventOf, type UserCommand, type UserEvent } from '@pass/events';
import { decideChangePassword } from '../account-access/change-password';
import { decideResetPassword } from '../account-access/password-reset';
import { decideDeleteMemberPost } from '../admin/delete-member-post';
import { decideSendChatMessage } from '../chat/send';
import { decideAwardFreePoint } from '../free-points/award';
import { decidePostCertificate } from '../passes/post-certificate';
import { decideRecordPassesClaim } from '../passes/record-claim';
import { decideCreditPurchase } from '../payments/credit-purchase';
import { decideRefundPurchase, decideReversePurchase } from '../payments/reverse-purchase';
import type { Decider } from '../kernel/decider';
import { decideRegisterUser } from './register';
import { decideEraseMember } from '../erasure/decide';
import { initialUserState, type UserState } from './state';

/** The member aggregate's commands, each decided by its capability's own step. */
export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'RegisterUser':
      return decideRegisterUser(command, state);
    case 'AwardFreePoint':
      return decideAwardFreePoint(command, state);
    case 'SendChatMessage':
      return decideSendChatMessage(command, state);
    case 'RecordPassesClaim':
      return decideRecordPassesClaim(command, state);
    case 'PostCertificate':
      return decidePostCertificate(command, state);
    case 'CreditPurchase':
      return decideCreditPurchase(command, state);
    case 'ReversePurchase':
      return decideReversePurchase(command, state);
    case 'RefundPurchase':
      return decideRefundPurchase(command, state);
    case 'DeleteMemberPost':
      return decideDeleteMemberPost(command, state);
    case 'ChangePassword':
      return decideChangePassword(command, state);
    case 'ResetPassword':
      return decideResetPassword(command, state);
    case 'EraseMember':
      return decideEraseMember(command, state);
    default:
      return assertNever(command);
  }
}

export const userDecider: Decider<UserCommand, UserState, UserEvent> = {
  name: 'user',
  initialState: initialUserState,
  isEvent: isEventOf('user'),
  evolve: evolveUser,
  decide: decideUser,
};
