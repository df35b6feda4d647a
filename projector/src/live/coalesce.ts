import { CHAT_PANEL_MESSAGES } from '@pass/events';
import type { LiveNotice } from '../projections/types';

/**
 * Live notices of batches stored while the projector is behind, waiting to be pushed as one.
 * Browsers need the latest state, not every step on the way, so what is kept is what a browser
 * would end up showing anyway:
 * - the figures once: the last batch's record, and whether any batch changed the countries;
 * - the chat: its new messages in order, or the history (read when pushed) after a clear or
 *   when there are more messages than the history holds;
 * - the last new post only: a browser shows one post at a time, each replacing the one before;
 * - the last progress day: each replaces the one before (a new day follows the ones a browser has).
 */
export class LiveBacklog {
  private mainData: Extract<LiveNotice, { kind: 'mainData' }> | undefined;
  private chat: Extract<LiveNotice, { kind: 'chatMessage' }>[] = [];
  private chatHistory = false;
  private lastPost: Extract<LiveNotice, { kind: 'globalMember' | 'globalMessage' }> | undefined;
  private progress: Extract<LiveNotice, { kind: 'progress' }> | undefined;

  get empty(): boolean {
    return this.mainData === undefined && !this.chatHistory && this.chat.length === 0 && this.lastPost === undefined && this.progress === undefined;
  }

  add(notices: LiveNotice[]): void {
    for (const notice of notices) {
      switch (notice.kind) {
        case 'mainData':
          this.mainData = { kind: 'mainData', main: notice.main, countriesChanged: notice.countriesChanged || this.mainData?.countriesChanged === true };
          break;
        case 'chatCleared':
          // The history read at push time already holds whatever was written after the clear.
          this.chatHistory = true;
          this.chat = [];
          break;
        case 'chatMessage':
          if (this.chatHistory) break;
          this.chat.push(notice);
          // The history holds as many messages as a browser gets when it (re)connects.
          if (this.chat.length > CHAT_PANEL_MESSAGES) {
            this.chatHistory = true;
            this.chat = [];
          }
          break;
        case 'globalMember':
        case 'globalMessage':
          this.lastPost = notice;
          break;
        case 'progress':
          this.progress = notice;
          break;
      }
    }
  }

  /**
   * The coalesced notices, emptying the backlog. Figures first (browsers take the chat total from
   * them), then the chat (a `chatCleared` notice stands for "send the history"), then the post,
   * then the progress day.
   */
  take(): LiveNotice[] {
    const notices: LiveNotice[] = [];
    if (this.mainData) notices.push(this.mainData);
    if (this.chatHistory) notices.push({ kind: 'chatCleared' });
    else notices.push(...this.chat);
    if (this.lastPost) notices.push(this.lastPost);
    if (this.progress) notices.push(this.progress);
    this.mainData = undefined;
    this.progress = undefined;
    this.chat = [];
    this.chatHistory = false;
    this.lastPost = undefined;
    return notices;
  }
}
