import { describe, expect, it } from 'vitest';
import { CHAT_PANEL_MESSAGES, type ChatMessageView, type GlobalPostView } from '@pass/events';
import type { LiveNotice } from '../projections/types';
import type { MainRecord } from '../read-models/types';
import { LiveBacklog } from './coalesce';

const message = (id: string): LiveNotice => ({ kind: 'chatMessage', message: { id } as ChatMessageView });
const post = (kind: 'globalMember' | 'globalMessage', userId: string): LiveNotice => ({ kind, post: { user: { id: userId } } as GlobalPostView });
const figures = (views: number, countriesChanged = false): LiveNotice => ({ kind: 'mainData', main: { views } as MainRecord, countriesChanged });
const kinds = (notices: LiveNotice[]) => notices.map((n) => (n.kind === 'chatMessage' ? `chat:${n.message.id}` : n.kind));

describe('live notices held back while the projector catches up', () => {
  it('given many batches with figures, chat and posts, when taken, then the figures come once, every message in order and only the last post', () => {
    const backlog = new LiveBacklog();
    backlog.add([figures(1), message('m1'), post('globalMember', 'ana')]);
    backlog.add([figures(2, true), post('globalMessage', 'bob'), message('m2')]);
    backlog.add([figures(3), post('globalMember', 'cy')]);

    const taken = backlog.take();

    expect(kinds(taken)).toEqual(['mainData', 'chat:m1', 'chat:m2', 'globalMember']);
    // The last batch's figures, and the countries read again because one batch changed them.
    expect(taken[0]).toEqual(figures(3, true));
    expect(taken[3]).toMatchObject({ post: { user: { id: 'cy' } } });
    expect(backlog.empty).toBe(true);
    expect(backlog.take()).toEqual([]);
  });

  it('given batches none of which changed the countries, when taken, then the figures say so', () => {
    const backlog = new LiveBacklog();
    backlog.add([figures(1)]);
    backlog.add([figures(2)]);
    expect(backlog.take()).toEqual([figures(2, false)]);
  });

  it('given a clear among the batches, when taken, then the chat is sent as the history, not as single messages', () => {
    const backlog = new LiveBacklog();
    backlog.add([message('m1')]);
    backlog.add([{ kind: 'chatCleared' }, message('m2')]);
    backlog.add([message('m3')]);

    expect(kinds(backlog.take())).toEqual(['chatCleared']);
  });

  it('given more messages than the history holds, when taken, then the history replaces them', () => {
    const backlog = new LiveBacklog();
    for (let i = 0; i < CHAT_PANEL_MESSAGES; i++) backlog.add([message(`m${i}`)]);
    expect(backlog.take()).toHaveLength(CHAT_PANEL_MESSAGES);

    for (let i = 0; i <= CHAT_PANEL_MESSAGES; i++) backlog.add([message(`m${i}`)]);
    expect(kinds(backlog.take())).toEqual(['chatCleared']);
  });

  it('given batches with nothing to tell, then there is nothing to push', () => {
    const backlog = new LiveBacklog();
    backlog.add([]);
    expect(backlog.empty).toBe(true);
    expect(backlog.take()).toEqual([]);
  });
});
