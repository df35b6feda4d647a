import { Fragment } from 'react';

/** The pieces of an e-mail between its sensible line breaks: after '@' and before each '.'. */
export function emailPieces(text: string): string[] {
  if (!/^[^\s@]+@[^\s@]+$/.test(text)) return [text];
  return text.split(/(?<=@)|(?=\.)/);
}

/**
 * A registry name that may be an e-mail (the member's own, or masked): a narrow column wraps it
 * after '@' or before a '.', not mid-word (a piece wider than the column still breaks, last).
 */
export function EmailText({ text }: { text: string }) {
  const pieces = emailPieces(text);
  if (pieces.length === 1) return <>{text}</>;
  return (
    <span className="email">
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </span>
  );
}
