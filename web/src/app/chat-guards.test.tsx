import { describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { OUT_OF_POINTS } from '../features/free-points';
import { JOIN_REASONS } from '../lib/join-reason';
import { chatMessage, sampleUser } from '../testing/fake-services';
import { renderApp, useAppHarness } from '../testing/render-app';

// The chat's guards use the site's pattern: a guest lands on join with a line that says
// why, a member out of points on /content/check with the line that says what to do.

useAppHarness();

async function sendFromChat(text: string) {
  fireEvent.click(await screen.findByRole('button', { name: /^Open chat/ }));
  const chat = await screen.findByRole('complementary', { name: 'Global chat' });
  fireEvent.input(within(chat).getByRole('textbox', { name: 'Message' }), { target: { value: text } });
  fireEvent.click(within(chat).getByRole('button', { name: 'Send' }));
}

describe('chat guards', () => {
  it('a guest who sends a message lands on join, which says why', async () => {
    const app = renderApp('/content/about');
    await sendFromChat('hello');
    await screen.findByRole('heading', { name: 'Join Freedom Pass' });
    expect(app.router.state.location.pathname).toBe('/content/join');
    expect(screen.getByRole('status').textContent).toBe(JOIN_REASONS.chat);
  });

  it('a member out of points lands on /content/check, which says what to do with a Buy Points link', async () => {
    const app = renderApp('/content/about', {
      storage: { userId: 'u1' },
      setup: (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 0 }),
    });
    await screen.findByRole('heading', { name: /About/ });
    // The stored member is back before the message goes.
    await new Promise((r) => setTimeout(r, 0));
    await sendFromChat('hello');
    const line = await screen.findByText(/You have no points left/);
    expect(app.router.state.location.pathname).toBe('/content/check');
    expect(line.textContent).toBe(`${OUT_OF_POINTS} Buy Points`);
    expect(within(line).getByRole('link', { name: 'Buy Points' }).getAttribute('href')).toBe('/content/points');
    expect(app.api.sendChatMessage).not.toHaveBeenCalled();
  });
});

describe('chat draft', () => {
  it('a message typed while the last one is on its way stays, and is what Send sends', async () => {
    let answer: () => void = () => {};
    const app = renderApp('/content/about', {
      storage: { userId: 'u1' },
      setup: (h) => {
        h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 50 });
        h.api.sendChatMessage.mockImplementation(
          (message: string) => new Promise((resolve) => {
            answer = () => resolve({ user: { ...sampleUser, chatCount: 49 }, message: { ...chatMessage(`m-${message}`, 'u1'), message } });
          }),
        );
      },
    });
    await screen.findByRole('heading', { name: /About/ });
    await act(() => new Promise((r) => setTimeout(r, 0)));
    await sendFromChat('first');
    await waitFor(() => expect(app.api.sendChatMessage).toHaveBeenCalledTimes(1));
    const chat = screen.getByRole('complementary', { name: 'Global chat' });
    const input = within(chat).getByRole<HTMLInputElement>('textbox', { name: 'Message' });
    // Typed while "first" is on its way; the answer lands, then Send at once.
    fireEvent.input(input, { target: { value: 'second' } });
    await act(async () => answer());
    expect(input.value).toBe('second');
    fireEvent.click(within(chat).getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(app.api.sendChatMessage).toHaveBeenCalledTimes(2));
    expect(app.api.sendChatMessage.mock.calls[1]?.[0]).toBe('second');
    expect(within(chat).queryByText('Please enter a message')).toBeNull();
  });
});
