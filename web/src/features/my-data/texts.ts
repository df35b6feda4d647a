/** The "Your data" page's own texts, in the site's English and tone. */
export const MY_DATA_TEXTS = {
  title: 'Your data',
  intro: 'What the site keeps about your account, and what you can do with it.',
  downloadTitle: 'Download your data',
  downloadText: 'A JSON file with your account, your certificate and the timeline of your points and passes.',
  downloadButton: 'Download my data',
  downloaded: 'Your data has been downloaded.',
  passwordTitle: 'Change your password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  newPasswordHint: '4 to 8 characters.',
  passwordButton: 'Change password',
  passwordChanged: 'Your password has been changed. Your other devices have been signed out; this one stays signed in.',
  everywhereTitle: 'Sign out everywhere',
  everywhereText: 'Ends every session of your account, on this device too. You sign in again with your e-mail and password.',
  everywhereButton: 'Sign out everywhere',
  deleteTitle: 'Delete your account',
  deleteText: 'Your account and your personal data are deleted for good. You are asked to confirm first.',
  deleteButton: 'Delete my account',
  dialogTitle: 'Delete your account?',
  dialogLead: 'This cannot be undone. You will lose:',
  dialogTotals: "The site's totals (passes taken, funds raised, messages sent) stay as they are.",
  dialogPassword: 'Your password',
  dialogPasswordRequired: 'Please enter your password',
  dialogConfirm: 'Delete my account for good',
  dialogCancel: 'Cancel',
} as const;

/** What a deletion takes away, named in the confirmation. */
export function lossList(points: string, passes: string): string[] {
  return [
    `Your points (${points}).`,
    `Your passes (${passes}) and your certificate.`,
    'Your posted card and its image.',
    'The authorship of your chat messages: your name no longer shows on them.',
  ];
}
