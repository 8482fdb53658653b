// Services without data and silent agents in a real browser (issue 39, item 7): a service
// that has had no result for three intervals greys on the overview and on its page, saying
// since when, live and without a reload, and comes back with its next result; an agent's
// alert on the alerts page names the agent and its location. A movable clock stands for the
// minutes that pass; a scripted agent sends the results.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const serviceRow = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

describe('dashboard: stale services and silent agents', function () {
  this.timeout(90_000);
  const clock = new MovableClock();
  let h: DashboardHarness;
  let owner: TestUser;
  const agents: ScriptedAgent[] = [];

  before(async function () {
    h = await startDashboard(this, { start: { clock } });
    owner = await h.controlPlane.api.newUser('stale-owner');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [owner.orgId]);
  });
  after(async () => {
    for (const agent of agents) agent.close();
    await h?.stop();
  });

  const agentAt = async (location: string) => {
    const agent = await connectReadyAgent(h.controlPlane.running, location);
    agents.push(agent);
    return agent;
  };
  const createService = async (name: string, location: string) => {
    const r = await h.controlPlane.api.post('/services', { name, check_type: 'TCP', endpoint: '127.0.0.1:9', check_interval_seconds: 30, locations: [location] }, owner.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string; name: string };
  };
  /** Twice: a round the timer started before the clock moved may be running, and the first call would answer that one. */
  const watch = async () => {
    await h.controlPlane.running.runWatchdog();
    await h.controlPlane.running.runWatchdog();
  };
  /** Shown greyed: the CSS filter of the dashboard's stale rule. (The tests compile without the DOM library, hence the cast.) */
  const greyed = (locator: ReturnType<Page['locator']>) =>
    locator.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { filter: string } }).getComputedStyle(el).filter.includes('grayscale'));

  it('greys a service without data for three intervals on the overview and its page, says since when, and brings it back with a result', async () => {
    const agent = await agentAt('greyed');
    const [quiet, lively] = [await createService('quiet', 'greyed'), await createService('lively', 'greyed')];
    await agent.sendResults([{ serviceId: quiet.id }, { serviceId: lively.id }]);
    const page = await h.signedInPage(owner);
    await serviceRow(page, 'quiet').getByText('GREEN').waitFor();
    expect(await page.getByText(/^No data since /).count(), 'nothing stale yet').to.equal(0);

    clock.advance(100_000);
    await agent.sendResults([{ serviceId: lively.id, checkedAtMs: clock.now().getTime() }]);
    await watch();
    // Live: the feed's service_stale message greys the row, no reload.
    const note = serviceRow(page, 'quiet').getByText(/^No data since /);
    await note.waitFor();
    expect(await serviceRow(page, 'quiet').getAttribute('class')).to.match(/\bstale\b/);
    expect(await greyed(serviceRow(page, 'quiet').getByText('GREEN')), 'the last status, greyed').to.equal(true);
    expect(await serviceRow(page, 'lively').getByText(/^No data since /).count(), 'a service with a recent result').to.equal(0);
    expect(await greyed(serviceRow(page, 'lively').getByText('GREEN'))).to.equal(false);

    await serviceRow(page, 'quiet').getByRole('link', { name: 'quiet', exact: true }).click();
    await page.getByRole('heading', { name: 'quiet', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: /^No data since .+: no result has arrived for three check intervals/ }).waitFor();
    const facts = page.getByRole('region', { name: 'About this service' });
    await facts.getByText(/^No data since /).waitFor();
    expect(await greyed(facts.getByText('GREEN'))).to.equal(true);

    await agent.sendResults([{ serviceId: quiet.id, checkedAtMs: clock.now().getTime() }]);
    await page.getByRole('status').filter({ hasText: /^No data since / }).waitFor({ state: 'detached' });
    await poll(async () => !(await greyed(facts.getByText('GREEN'))), { what: 'the status no longer greyed' });
  });

  it("shows a silent agent's alert with the agent and its location instead of a service", async () => {
    await createService('watched', 'agent-page');
    await agentAt('agent-page');
    const gone = await agentAt('agent-page');
    gone.close();
    await poll(async () => (await sql('select 1 from agent_sessions where agent_id = $1', [gone.agentId])).length === 0, { what: 'the agent gone' });
    const page = await h.signedInPage(owner, '/alerts');
    await page.getByText(/^No alert is firing/).waitFor();

    clock.advance(61_000);
    await watch();
    const card = page.getByRole('article', { name: 'Agent test in agent-page is offline' });
    await card.waitFor();
    await card.getByText('Severity: critical').waitFor();
    const facts = card.locator('dl');
    expect(await facts.getByRole('term').allInnerTexts()).to.include.members(['Agent', 'Location']);
    expect(await facts.getByRole('term').filter({ hasText: /^Service$/ }).count()).to.equal(0);
    await facts.getByRole('link', { name: 'agent-page' }).waitFor();
  });
});
