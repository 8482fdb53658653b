// Browser tests drive Debian's Chromium through playwright-core against a real control plane
// serving the built dashboard. Pages are found as a person finds things: by role, label, text.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { requireCapability } from '../fixtures/peers/require-peer.js';
import type { TestUser } from './api-client.js';
import { startTestControlPlane, type HarnessOptions, type TestControlPlane } from './control-plane-harness.js';

export const CHROMIUM = '/usr/bin/chromium';
// Without the networking flags Chromium keeps trying to reach Google's hosts and stalls.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let built = false;

/** Builds dist/web when its sources changed (the same check npm start makes). */
export function buildDashboard(): void {
  if (built) return;
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build-web.mjs', import.meta.url))], { stdio: 'inherit' });
  built = true;
}

export function requireChromium(mocha: Mocha.Context): void {
  let missing: string | null = null;
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    missing = `${CHROMIUM} is missing (Debian package chromium)`;
  }
  requireCapability(mocha, missing);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
}

export interface DashboardHarness {
  controlPlane: TestControlPlane;
  browser: Browser;
  /** A fresh browser context (its own storage) on the dashboard, with console errors collected. */
  newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  /** A page already signed in as `user` (the token placed as the sign-in form would). */
  signedInPage(user: TestUser, path?: string): Promise<Page>;
  stop(): Promise<void>;
}

export async function startDashboard(mocha: Mocha.Context, options: HarnessOptions = {}): Promise<DashboardHarness> {
  requireChromium(mocha);
  buildDashboard();
  const controlPlane = await startTestControlPlane({ ...options, env: { API_RATE_LIMIT: 'off', ...options.env } });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];

  const newPage = async () => {
    const context = await browser.newContext({ baseURL: controlPlane.baseUrl, viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    return { context, page, errors };
  };

  return {
    controlPlane,
    browser,
    newPage,
    async signedInPage(user, path = '/services') {
      const { page } = await newPage();
      await page.goto('/sign-in');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      if (path !== '/services') await page.goto(path);
      return page;
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await controlPlane.stop();
    },
  };
}
