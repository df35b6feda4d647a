/** Only http(s) links from members are rendered as links (a `javascript:` URL would run on click). */
export function isHttpLink(link: string): boolean {
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
