import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { EmailText, emailPieces } from './EmailText';

afterEach(cleanup);

describe('EmailText', () => {
  it("breaks an e-mail only after '@' and before each '.'", () => {
    expect(emailPieces('mem*********@mail.example.com')).toEqual(['mem*********@', 'mail', '.example', '.com']);
    expect(emailPieces('ada.lovelace@example.org')).toEqual(['ada', '.lovelace@', 'example', '.org']);
  });

  it('leaves a name alone', () => {
    expect(emailPieces('Ada Lovelace')).toEqual(['Ada Lovelace']);
    expect(emailPieces('not@an e-mail')).toEqual(['not@an e-mail']);
  });

  it('keeps the text whole for reading and search, with <wbr> at the breaks', () => {
    const { container } = render(<EmailText text="member1@example.com" />);
    expect(container.textContent).toBe('member1@example.com');
    expect(container.querySelectorAll('wbr')).toHaveLength(2);
  });
});
