// A service's badges in a real browser: a member makes a badge token on the service's page,
// the URLs shown carry it and answer an SVG, and removing the token closes them again.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: service badges', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('badges-owner');
  });
  after(async () => {
    await h?.stop();
  });

  it('makes a badge token whose URLs answer an SVG, and removes it', async () => {
    const service = (await h.controlPlane.api.post('/services', { name: 'Billing', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token)).body;
    const page = await h.signedInPage(owner, `/services/${service.id}`);
    const card = page.getByRole('region', { name: 'Badges' });
    const status = card.getByRole('list', { name: 'Badge URLs' }).getByRole('listitem').filter({ hasText: 'Status' }).locator('code');
    expect(await status.textContent()).to.equal(`${h.controlPlane.baseUrl}/api/v1/badges/${service.id}/status.svg`);
    expect((await fetch((await status.textContent())!)).status, 'on no public page, without a token').to.equal(404);

    await card.getByRole('button', { name: 'Make a badge token' }).click();
    await card.getByText('copy them now').waitFor();
    const withToken = (await status.textContent())!;
    expect(withToken).to.match(/status\.svg\?token=/);
    const svg = await fetch(withToken);
    expect(svg.status).to.equal(200);
    expect(svg.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(await svg.text()).to.include('<svg');

    await card.getByRole('button', { name: 'Remove the badge token' }).click();
    await card.getByRole('button', { name: 'Make a badge token', exact: true }).waitFor();
    expect((await fetch(withToken)).status).to.equal(404);
  });
});
