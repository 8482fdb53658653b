// The journey of a new user, from an empty organization to an acknowledged alert and a
// public status page, all in the browser and live: no reload anywhere after signing up.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';

describe('dashboard: a new user from sign-up to an acknowledged alert', function () {
  this.timeout(120_000);
  let h: DashboardHarness;
  let target: http.Server;
  let targetUrl: string;
  let webhook: HttpReceiver;

  before(async function () {
    target = http.createServer((_req, res) => res.end('shop is up'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    webhook = await startHttpReceiver();
    h = await startDashboard(this, { embeddedAgent: true });
  });
  after(async () => {
    await h?.stop();
    await webhook?.close();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  it('creates an account, a service, a channel and a rule, sees GREEN then RED and a firing alert live, acknowledges it and publishes a status page', async () => {
    const { page, errors } = await h.newPage();
    let reloads = 0;
    page.on('load', () => reloads++);

    await page.goto('/create-account');
    await page.getByLabel('Name').fill('Margaret Hamilton');
    await page.getByLabel('Email').fill(`margaret-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('apollo-guidance');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();

    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Notification channels' }).click();
    await page.getByRole('button', { name: 'Create channel' }).click();
    const channelDialog = page.getByRole('dialog');
    await channelDialog.getByLabel('Name').fill('on-call hook');
    await channelDialog.getByLabel('Type').selectOption('webhook');
    await channelDialog.getByLabel('URL').fill(`${webhook.url}/hook`);
    await channelDialog.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('main').getByText('on-call hook', { exact: true }).first().waitFor();

    await nav.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('link', { name: 'New service' }).click();
    await page.getByLabel('Name').fill('shop');
    await page.getByLabel('Check type').selectOption('HTTP');
    await page.getByLabel('Endpoint').fill(targetUrl);
    await page.getByLabel('Interval (seconds)').fill('5');
    await page.getByLabel('Timeout (seconds)').fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'shop', level: 1 }).waitFor();

    await nav.getByRole('link', { name: 'Alert rules' }).click();
    await page.getByRole('button', { name: 'Create rule' }).click();
    const ruleDialog = page.getByRole('dialog');
    await ruleDialog.getByLabel('Name').fill('shop is down');
    await ruleDialog.getByLabel('Service', { exact: true }).selectOption({ label: 'shop' });
    await ruleDialog.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('main').getByText('shop is down', { exact: true }).first().waitFor();

    await nav.getByRole('link', { name: 'Services' }).click();
    const row = page.getByRole('row', { name: /shop/ });
    await row.getByText('GREEN', { exact: true }).waitFor({ timeout: 20_000 });

    target.close();
    target.closeAllConnections();
    await row.getByText('RED', { exact: true }).waitFor({ timeout: 20_000 });

    await nav.getByRole('link', { name: 'Alerts' }).click();
    const alert = page.getByRole('article').filter({ hasText: 'shop' });
    await alert.getByText('Firing').first().waitFor({ timeout: 15_000 });
    await alert.getByRole('button', { name: /^Acknowledge/ }).click();
    await page.getByRole('tab', { name: /Acknowledged/ }).click();
    const acknowledged = page.getByRole('article').filter({ hasText: 'shop' });
    await acknowledged.getByText(/Margaret Hamilton|margaret-/).first().waitFor();
    expect(await acknowledged.getByText('Acknowledged').count()).to.be.greaterThan(0);

    const delivered = await pollReceiver(webhook, 1);
    expect(delivered).to.be.greaterThan(0);

    await nav.getByRole('link', { name: 'Status pages' }).click();
    await page.getByRole('button', { name: 'Create status page' }).click();
    const statusDialog = page.getByRole('dialog');
    await statusDialog.getByLabel('Title').fill('Shop status');
    const slug = `shop-${Date.now()}`;
    await statusDialog.getByLabel('Slug').fill(slug);
    await statusDialog.getByLabel(/^Public/).check();
    await statusDialog.getByLabel('shop').check();
    await statusDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('main').getByText('Shop status', { exact: true }).first().waitFor();
    expect(reloads, 'page loads after the first').to.equal(1);

    const visitor = await h.newPage();
    await visitor.page.goto(`/status/${slug}`);
    await visitor.page.getByRole('heading', { name: 'Shop status' }).waitFor();
    await visitor.page.getByRole('heading', { name: 'shop', exact: true }).waitFor();
    await visitor.page.getByText('RED').first().waitFor();
    expect(errors).to.deep.equal([]);
    expect(visitor.errors).to.deep.equal([]);
  });
});

async function pollReceiver(receiver: HttpReceiver, atLeast: number): Promise<number> {
  const until = Date.now() + 15_000;
  while (receiver.requests.length < atLeast && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return receiver.requests.length;
}
