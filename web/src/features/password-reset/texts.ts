/** The reset pages' own texts; the server's rules and messages are the kernel's ACCOUNT_ACCESS_MESSAGES. */
export const RESET_TEXTS = {
  forgotTitle: 'Forgot your password?',
  forgotText: "Enter the e-mail you joined with. We'll send you a link to set a new password.",
  email: 'Email',
  sendButton: 'Send me a link',
  resetTitle: 'Set a new password',
  newPassword: 'New password',
  newPasswordHint: '4 to 8 characters.',
  repeatPassword: 'Repeat the new password',
  mismatch: 'The two passwords do not match',
  resetButton: 'Set my new password',
  checking: 'Checking your link…',
  done: 'Your new password is set.',
  signIn: 'Sign in with it',
  askAgain: 'Ask for a new link',
  backToJoin: 'Back to join',
} as const;
