// The API reference at /docs renders in a real browser from files the control plane serves,
// with nothing fetched from elsewhere and nothing refused by its Content-Security-Policy.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, requireChromium } from '../support/browser.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

describe('API docs page', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let browser: Browser;

  before(async function () {
    requireChromium(this);
    cp = await startTestControlPlane();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await cp?.stop();
  });

  it('shows every group of operations of the OpenAPI document', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => !r.url().startsWith(cp.baseUrl) && !r.url().startsWith('data:') && elsewhere.push(r.url()));
    await page.goto(`${cp.baseUrl}/docs`);
    await page.getByRole('heading', { name: /Outpost API/ }).waitFor({ timeout: 20_000 });
    for (const tag of ['Services', 'Alerts', 'Agents', 'Heartbeats', 'Status pages']) {
      await page.getByText(tag, { exact: true }).first().waitFor();
    }
    const groups = await page.locator('.opblock-tag').allInnerTexts();
    expect(groups.map((g) => g.split('\n')[0]), 'every group of the document, folded').to.include.members(['Services', 'Status pages', 'Incidents', 'Reports', 'Badges']);
    await page.getByText('Services', { exact: true }).first().click();
    await page.getByText('List services', { exact: true }).first().waitFor();
    expect(elsewhere).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
    await page.close();
  });
});
