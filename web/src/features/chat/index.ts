// The global chat (docs/product.md §2 chat panel, §4 chat events, §6 who may send): its panel, loaded when
// first opened, and the saga that sends and receives over the live connection.
export const loadChatPanel = () => import('./ChatPanel');
export { CHAT_KEEP, chatActions, chatReducer, selectChatOpen } from './slice';
export { chatSaga } from './sagas';
