import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ChatHistory, ChatMessageView } from '@pass/events/kernel';
import type { Priority } from '@pass/events/domain-events';
import { ANONYMOUS_NICKNAME } from '@pass/events/kernel';

/** Messages kept in memory; older ones scroll away. */
export const CHAT_KEEP = 200;

export interface ChatState {
  isOpened: boolean;
  chatInfo: { nickname: string; message: string; priority: Priority };
  globalMessages: ChatMessageView[];
  sending: boolean;
}

const initialState: ChatState = {
  isOpened: false,
  chatInfo: { nickname: ANONYMOUS_NICKNAME, message: '', priority: '' },
  globalMessages: [],
  sending: false,
};

const chatSlice = createSlice({
  name: 'chat',
  initialState,
  reducers: {
    chatToggled(state) {
      state.isOpened = !state.isOpened;
    },
    chatClosed(state) {
      state.isOpened = false;
    },
    draftChanged(state, action: PayloadAction<string>) {
      state.chatInfo.message = action.payload;
    },
    sendRequested(state, _action: PayloadAction<string>) {
      state.sending = true;
    },
    sendFinished(state, action: PayloadAction<{ sent: boolean }>) {
      state.sending = false;
      if (action.payload.sent) state.chatInfo.message = '';
    },
    chatMessageReceived(state, action: PayloadAction<ChatMessageView>) {
      if (state.globalMessages.some((m) => m.id === action.payload.id)) return;
      state.globalMessages.push(action.payload);
      if (state.globalMessages.length > CHAT_KEEP) state.globalMessages.splice(0, state.globalMessages.length - CHAT_KEEP);
    },
    chatHistoryReceived(state, action: PayloadAction<ChatHistory>) {
      state.globalMessages = action.payload.messages.slice(-CHAT_KEEP);
    },
  },
});

export const chatActions = chatSlice.actions;
export default chatSlice.reducer;
