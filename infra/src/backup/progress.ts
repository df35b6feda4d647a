/**
 * Progress of a long CLI run. On a terminal one status line is rewritten in place (at most five
 * times a second); otherwise (a log, cron) only the start and end lines are printed.
 */
export interface Progress {
  /** A line printed as is. */
  line(text: string): void;
  /** The current state, shown on a terminal only. */
  update(text: string): void;
  /** The closing line. */
  done(text: string): void;
}

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, out: NodeJS.WriteStream = process.stdout): Progress {
  const tty = stream.isTTY === true;
  let last = 0;
  let shown = false;
  const clear = () => {
    if (shown) stream.write('\r\x1b[K');
    shown = false;
  };
  return {
    line(text) {
      clear();
      out.write(text + '\n');
    },
    update(text) {
      if (!tty || Date.now() - last < 200) return;
      last = Date.now();
      stream.write(`\r\x1b[K  ${text}`);
      shown = true;
    },
    done(text) {
      clear();
      out.write(text + '\n');
    },
  };
}

/** For tests and callers that print nothing. */
export const silentProgress: Progress = { line: () => undefined, update: () => undefined, done: () => undefined };
