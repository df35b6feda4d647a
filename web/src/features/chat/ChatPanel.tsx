import { useEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { chatMessageSchema, chatNickname, isHighlightedChatMessage, LIMITS } from '@pass/events/kernel';
import { BadgeIcon, CloseIcon } from '../../components/Icons';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useChatPanelClose } from './panel-close';
import { chatActions } from './slice';

/** The global chat; a special user's messages are highlighted, the rest plain (isHighlightedChatMessage, docs/product.md §6). */
export default function ChatPanel() {
  const dispatch = useAppDispatch();
  const { globalMessages, chatInfo, sending } = useAppSelector((state) => state.chat);
  const listRef = useRef<HTMLOListElement>(null);
  const panel = useChatPanelClose(() => dispatch(chatActions.chatClosed()));
  const { register, handleSubmit, formState, setValue } = useForm<{ message: string }>({
    resolver: zodResolver(chatMessageSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { message: chatInfo.message },
  });

  // The draft is cleared by the saga once the message is sent.
  useEffect(() => {
    setValue('message', chatInfo.message);
  }, [chatInfo.message, setValue]);

  useEffect(() => {
    listRef.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [globalMessages.length]);

  const field = register('message', { onChange: (e) => dispatch(chatActions.draftChanged(e.target.value)) });

  return (
    <aside ref={panel.ref} className="chat-panel" aria-label="Global chat">
      <header>
        <h2>Global chat</h2>
        <button type="button" className="icon-button" aria-label="Close chat" onClick={panel.close}>
          <CloseIcon />
        </button>
      </header>
      <ol ref={listRef} className="chat-messages" aria-live="polite">
        {globalMessages.length === 0 && <li className="muted">No messages yet. Say hello!</li>}
        {globalMessages.map((m) => (
          <li key={m.id} className={isHighlightedChatMessage(m.priority) ? 'highlighted' : 'plain'}>
            {isHighlightedChatMessage(m.priority) && (
              <span role="img" aria-label="Member"><BadgeIcon size={14} /></span>
            )}
            <strong>{chatNickname(m.nickname)}:</strong> <span>{m.message}</span>
          </li>
        ))}
      </ol>
      <form noValidate onSubmit={handleSubmit((v) => dispatch(chatActions.sendRequested(v.message)))}>
        <label htmlFor="chat-message" className="visually-hidden">Message</label>
        <input id="chat-message" autoComplete="off" maxLength={LIMITS.chatMessageMaxChars + 1}
          placeholder="Write a message" aria-invalid={Boolean(formState.errors.message)} {...field} />
        <button type="submit" className="button primary" disabled={sending}>Send</button>
        {formState.errors.message && <small className="error" role="alert">{formState.errors.message.message}</small>}
      </form>
    </aside>
  );
}
