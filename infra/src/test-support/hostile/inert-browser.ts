import { chromium, type Page } from 'playwright-core';

export interface InertReport {
  pages: number;
  /** alert()/confirm()/prompt() dialogs that opened: injected script ran. */
  dialogs: string[];
  /** Content-Security-Policy violations the page reported (the built app must need none). */
  cspViolations: string[];
  /** Elements the member's markup would have created had it been parsed as HTML. */
  injectedElements: string[];
  /** Paths where the member's name was shown literally, as text. */
  literalNameShown: string[];
}

/**
 * Opens the built web app in Debian's Chromium (headless, no sandbox, no background networking)
 * and looks at the pages that show members' text: the sponsors ranking on `/` and the registry on
 * `/content/participants`. The name must show as the literal characters typed, no dialog may
 * open, and the page must not violate its own Content-Security-Policy.
 */
export async function checkRenderedInert(origin: string, member: { name: string; message: string }): Promise<InertReport> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const report: InertReport = { pages: 0, dialogs: [], cspViolations: [], injectedElements: [], literalNameShown: [] };
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Accept the cookie notice up front, as a returning visitor would.
    // (Page scripts are strings: this package is compiled without the DOM library.)
    await context.addInitScript(`
      localStorage.setItem('acceptedCookie', 'true');
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__csp.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')');
      });
    `);
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      report.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to (load|execute|apply|frame|connect)/i.test(message.text())) report.cspViolations.push(message.text());
    });

    for (const path of ['/', '/content/participants']) {
      report.pages++;
      await page.goto(origin + path, { waitUntil: 'load' });
      const shown = await waitForLiteral(page, member.name);
      if (shown) report.literalNameShown.push(path);
      // Give an injected onerror/onload a moment to fire, had the markup been parsed.
      await page.waitForTimeout(500);
      report.injectedElements.push(...(await injected(page)).map((e) => `${path}: ${e}`));
      const csp = (await page.evaluate('window.__csp || []')) as string[];
      report.cspViolations.push(...csp.map((v) => `${path}: ${v}`));
    }
    // A form parse (the shared zod rules) under the CSP: no eval, no violation.
    report.pages++;
    await page.goto(`${origin}/content/join`, { waitUntil: 'load' });
    await page.getByLabel('Email').fill(member.message);
    await page.getByLabel('Password').fill('pw');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByText('Invalid Email').first().waitFor({ state: 'visible', timeout: 10_000 });
    const csp = (await page.evaluate('window.__csp || []')) as string[];
    report.cspViolations.push(...csp.map((v) => `/content/join: ${v}`));
    await context.close();
  } finally {
    await browser.close();
  }
  return report;
}

async function waitForLiteral(page: Page, text: string): Promise<boolean> {
  try {
    // A locator, not waitForFunction: a string predicate is eval'd in the page, which the CSP (rightly) blocks.
    await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

async function injected(page: Page): Promise<string[]> {
  return (await page.evaluate(
    `Array.from(document.querySelectorAll('svg[onload], img[onerror], script:not([src])')).map((el) => el.outerHTML.slice(0, 120))`,
  )) as string[];
}
