// Assertions in the dashboard: the form's values become the options the API takes; the form
// edits assertions with thresholds and client options and saves them; "Test" runs the form's
// check on the embedded agent and shows each assertion's actual value; the service page shows
// the latest result's assertions, steps and saved response.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { ASSERTION_SOURCES } from '../../shared/src/assertion-catalogue.js';
import { assertionsBody, newAssertion } from '../../control-plane/web/src/pages/services/assertion-values.js';
import { bodyOf, valuesOf } from '../../control-plane/web/src/pages/services/form-values.js';
import type { Service } from '../../control-plane/web/src/api/types.js';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { connectScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';

/** A local HTTP target answering JSON, as an API under watch would. */
async function startJsonTarget() {
  // `authorized`: whether the request carried the bearer token the form test saves.
  const server = http.createServer((req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', version: 7, authorized: req.headers.authorization === 'Bearer t0ken' })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The message shown for a field: the last element its aria-describedby names. */
async function fieldError(scope: Page | ReturnType<Page['locator']>, page: Page, label: string): Promise<string> {
  const field = scope.getByLabel(label, { exact: true });
  await field.and(page.locator('[aria-invalid="true"]')).waitFor();
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  return page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText();
}

/** The cells of the table row whose text matches `text`. */
async function rowCells(page: Page, table: string, text: string | RegExp): Promise<string[]> {
  const row = page.getByRole('table', { name: table, exact: true }).getByRole('row').filter({ hasText: text });
  await row.waitFor();
  return (await row.getByRole('cell').allInnerTexts()).map((t) => t.trim());
}

describe('service form values', () => {
  it('keeps a {{secrets.NAME}} reference a secret option holds, and a stored secret as its mask, when a service is saved again', () => {
    const options = { bearer_token: '{{secrets.API_TOKEN}}', oauth2: { token_url: 'https://auth.example/token', client_id: 'dashboard', client_secret: '********' } };
    const service = { check_type: 'HTTP', name: 'x', endpoint: 'https://x.example', tags: [], locations: ['local'], depends_on: [], options } as unknown as Service;
    const values = valuesOf(service);
    expect(values.options['bearer_token']).to.equal('{{secrets.API_TOKEN}}');
    expect(bodyOf(values, service.options).options).to.deep.equal(options);
    // Without a field of its own typed, the object goes, and the secret kept in it with it.
    expect(bodyOf({ ...values, options: { ...values.options, 'oauth2.token_url': '', 'oauth2.client_id': '' } }, service.options).options).to.deep.equal({ bearer_token: '{{secrets.API_TOKEN}}' });
  });

  it('sends a target as a number for numeric comparisons and sources, as text otherwise, and only what the source and comparison take', () => {
    const row = (change: Partial<ReturnType<typeof newAssertion>>) => ({ ...newAssertion('status'), ...change });
    expect(
      assertionsBody(
        [
          row({ comparison: 'equals', target: '200', property: 'ignored' }),
          row({ source: 'json', property: ' $.version ', comparison: 'greater_or_equal', target: '7', match: 'all' }),
          row({ source: 'json', property: '$.id', comparison: 'equals', target: '007' }),
          row({ source: 'body', comparison: 'not_empty', target: 'ignored', match: 'all' }),
        ],
        ASSERTION_SOURCES.HTTP,
      ),
    ).to.deep.equal([
      { source: 'status', comparison: 'equals', target: 200 },
      { source: 'json', property: '$.version', comparison: 'greater_or_equal', target: 7, match: 'all' },
      { source: 'json', property: '$.id', comparison: 'equals', target: '007' },
      { source: 'body', comparison: 'not_empty' },
    ]);
  });
});

describe('dashboard: assertions', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  let target: Awaited<ReturnType<typeof startJsonTarget>>;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this, { embeddedAgent: true });
    target = await startJsonTarget();
    owner = await h.controlPlane.api.newUser('assertions-owner');
  });
  after(async () => {
    await target?.stop();
    await h?.stop();
  });

  it('edits assertions, thresholds and a bearer token in the form, saves them, and shows the API errors at the row they name', async () => {
    const page = await h.signedInPage(owner, '/services/new');
    await page.getByLabel('Name', { exact: true }).fill('orders api');
    await page.getByLabel('Endpoint').fill(target.url);

    await page.getByRole('button', { name: 'Add assertion' }).click();
    const first = page.getByRole('group', { name: 'Assertion 1' });
    await first.getByLabel('Source').selectOption('status');
    await first.getByLabel('Comparison').selectOption('equals');
    await first.getByLabel('Target').fill('200');
    expect(await first.getByLabel('Header name').count(), 'status takes no property').to.equal(0);

    await page.getByRole('button', { name: 'Add assertion' }).click();
    const second = page.getByRole('group', { name: 'Assertion 2' });
    await second.getByLabel('Source').selectOption('json');
    await second.getByLabel('JSONPath').fill('$[');
    await second.getByLabel('Comparison').selectOption('equals');
    await second.getByLabel('Target').fill('ok');

    await page.getByRole('button', { name: 'Add assertion' }).click();
    const third = page.getByRole('group', { name: 'Assertion 3' });
    await third.getByLabel('Source').selectOption('header');
    await third.getByLabel('Header name').fill('content-type');
    await third.getByLabel('Comparison').selectOption('exists');
    expect(await third.getByLabel('Target').count(), 'exists takes no target').to.equal(0);
    await third.getByLabel('Match').selectOption('all');

    await page.getByRole('button', { name: 'Add assertion' }).click();
    await page.getByRole('button', { name: 'Remove assertion 4' }).click();
    expect(await page.getByRole('group', { name: 'Assertion 4' }).count()).to.equal(0);

    await page.getByLabel('Degraded after (ms)').fill('300');
    await page.getByLabel('Failed after (ms)').fill('2000');
    await page.getByLabel('Retries', { exact: true }).fill('2');
    await page.getByLabel('Retry interval (s)').fill('10');
    await page.getByRole('button', { name: 'Authentication' }).click();
    await page.getByLabel('Bearer token', { exact: true }).fill('t0ken');

    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(second, page, 'JSONPath')).to.match(/JSONPath/);
    await second.getByLabel('JSONPath').fill('$.status');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'orders api', exact: true, level: 1 }).waitFor();

    const id = page.url().split('/').pop()!;
    const saved = (await h.controlPlane.api.get(`/services/${id}`, owner.token)).body;
    expect(saved.options).to.deep.equal({
      assertions: [
        { source: 'status', comparison: 'equals', target: 200 },
        { source: 'json', property: '$.status', comparison: 'equals', target: 'ok' },
        { source: 'header', property: 'content-type', comparison: 'exists', match: 'all' },
      ],
      degraded_after_ms: 300,
      fail_after_ms: 2000,
      retries: 2,
      retry_interval_seconds: 10,
      bearer_token: '********',
    });

    // Edited again, the form shows what is stored and keeps the token it cannot show.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('group', { name: 'Assertion 2' }).getByLabel('JSONPath').waitFor();
    expect(await page.getByRole('group', { name: 'Assertion 2' }).getByLabel('JSONPath').inputValue()).to.equal('$.status');
    expect(await page.getByRole('button', { name: 'Authentication' }).getAttribute('aria-expanded'), 'a stored token opens its section').to.equal('true');
    expect(await page.getByLabel('Bearer token', { exact: true }).inputValue()).to.equal('');
    // Tested while edited, the check runs with the stored token the form cannot show.
    await page.getByRole('button', { name: 'Add assertion' }).click();
    const authorized = page.getByRole('group', { name: 'Assertion 4' });
    await authorized.getByLabel('Source').selectOption('json');
    await authorized.getByLabel('JSONPath').fill('$.authorized');
    await authorized.getByLabel('Comparison').selectOption('equals');
    await authorized.getByLabel('Target').fill('true');
    await page.getByRole('button', { name: 'Test' }).click();
    await page.getByRole('region', { name: 'Test result' }).getByRole('table', { name: 'Assertions', exact: true }).waitFor({ timeout: 20_000 });
    expect(await rowCells(page, 'Assertions', '$.authorized')).to.deep.equal(['JSON body', '$.authorized', 'equals', 'true', 'true', 'Passed']);
    await page.getByRole('button', { name: 'Remove assertion 4' }).click();
    await page.getByLabel('Failed after (ms)').fill('200');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(page, page, 'Failed after (ms)')).to.match(/greater than degraded_after_ms/);
    await page.getByLabel('Failed after (ms)').fill('3000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'orders api', exact: true, level: 1 }).waitFor();
    const changed = (await h.controlPlane.api.get(`/services/${id}`, owner.token)).body;
    expect(changed.options).to.include({ fail_after_ms: 3000, bearer_token: '********' });
    expect(changed.options.assertions).to.deep.equal(saved.options.assertions);
  });

  it("tests the form's check without saving it: each assertion's actual value, and why a test could not run", async () => {
    const page = await h.signedInPage(owner, '/services/new');
    await page.getByLabel('Name', { exact: true }).fill('tested only');
    await page.getByLabel('Endpoint').fill('not a url');
    await page.getByRole('button', { name: 'Test' }).click();
    expect(await fieldError(page, page, 'Endpoint')).to.match(/http/);

    await page.getByLabel('Endpoint').fill(target.url);
    await page.getByRole('button', { name: 'Add assertion' }).click();
    const status = page.getByRole('group', { name: 'Assertion 1' });
    await status.getByLabel('Source').selectOption('status');
    await status.getByLabel('Comparison').selectOption('equals');
    await status.getByLabel('Target').fill('200');
    await page.getByRole('button', { name: 'Add assertion' }).click();
    const json = page.getByRole('group', { name: 'Assertion 2' });
    await json.getByLabel('Source').selectOption('json');
    await json.getByLabel('JSONPath').fill('$.status');
    await json.getByLabel('Comparison').selectOption('equals');
    await json.getByLabel('Target').fill('healthy');

    await page.getByRole('button', { name: 'Test' }).click();
    const outcome = page.getByRole('region', { name: 'Test result' });
    await outcome.getByRole('table', { name: 'Assertions', exact: true }).waitFor({ timeout: 20_000 });
    await outcome.getByText('RED', { exact: true }).waitFor();
    expect(await rowCells(page, 'Assertions', /^JSON body/)).to.deep.equal(['JSON body', '$.status', 'equals', 'healthy', 'ok', 'Failed']);
    expect(await rowCells(page, 'Assertions', /^Status/)).to.deep.equal(['Status', '', 'equals', '200', '200', 'Passed']);

    // A location no agent serves: nothing can run the test.
    await page.getByLabel('Other locations').fill('nowhere-near');
    await page.getByLabel('Test from').selectOption('nowhere-near');
    await page.getByRole('button', { name: 'Test' }).click();
    await outcome.getByRole('alert').filter({ hasText: 'no agent serves this location' }).waitFor({ timeout: 10_000 });

    const listed = (await h.controlPlane.api.get('/services', owner.token)).body as { name: string }[];
    expect(listed.map((s) => s.name), 'a test saves nothing').to.not.include('tested only');
  });

  it('edits MULTISTEP steps (extractions, assertions, order), tests them step by step and saves them', async () => {
    const page = await h.signedInPage(owner, '/services/new');
    await page.getByLabel('Name', { exact: true }).fill('sign-in journey');
    await page.getByLabel('Check type').selectOption('MULTISTEP');
    await page.getByLabel('Endpoint').fill(target.url.replace('/health', ''));

    const signIn = page.getByRole('group', { name: 'Step 1' });
    await signIn.getByLabel('Step name').fill('sign in');
    await signIn.getByLabel('Method').selectOption('POST');
    await signIn.getByLabel('URL').fill('/login');
    await page.getByRole('button', { name: 'Add extraction to step 1' }).click();
    const extraction = page.getByRole('group', { name: 'Step 1 extraction 1' });
    await extraction.getByLabel('Variable').fill('version');
    await extraction.getByLabel('JSONPath').fill('$.version');

    await page.getByRole('button', { name: 'Add step' }).click();
    const basket = page.getByRole('group', { name: 'Step 2' });
    await basket.getByLabel('Step name').fill('basket');
    await basket.getByLabel('URL').fill('/basket?v={{version}}');
    await page.getByRole('button', { name: 'Add assertion to step 2' }).click();
    const status = page.getByRole('group', { name: 'Step 2 assertion 1' });
    await status.getByLabel('Source').selectOption('status');
    await status.getByLabel('Comparison').selectOption('equals');
    await status.getByLabel('Target').fill('200');

    await page.getByRole('button', { name: 'Add step' }).click();
    await page.getByRole('group', { name: 'Step 3' }).getByLabel('Step name').fill('warm up');
    await page.getByRole('group', { name: 'Step 3' }).getByLabel('URL').fill('/');
    await page.getByRole('button', { name: 'Move step 3 up' }).click();
    await page.getByRole('button', { name: 'Move step 2 up' }).click();
    expect(await page.getByRole('group', { name: 'Step 1' }).getByLabel('Step name').inputValue()).to.equal('warm up');

    await page.getByRole('button', { name: 'Test' }).click();
    const outcome = page.getByRole('region', { name: 'Test result' });
    await outcome.getByRole('listitem', { name: 'Step 3: basket' }).getByText('OK', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await rowCells(page, 'Assertions of step 3', /^Status/)).to.deep.equal(['Status', '', 'equals', '200', '200', 'Passed']);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'sign-in journey', exact: true, level: 1 }).waitFor();
    const saved = (await h.controlPlane.api.get(`/services/${page.url().split('/').pop()}`, owner.token)).body;
    expect(saved.options.steps).to.deep.equal([
      { name: 'warm up', url: '/' },
      { name: 'sign in', method: 'POST', url: '/login', extract: [{ name: 'version', source: 'json', property: '$.version' }] },
      { name: 'basket', url: '/basket?v={{version}}', assertions: [{ source: 'status', comparison: 'equals', target: 200 }] },
    ]);
  });

  it("shows the latest result's assertions with their actual values, a MULTISTEP run's steps and the saved response", async () => {
    const location = `lab-${randomUUID().slice(0, 8)}`;
    const registered = await h.controlPlane.api.post('/agents', { name: 'lab agent', location }, owner.token);
    expect(registered.status, registered.text).to.equal(201);
    const created = await h.controlPlane.api.post(
      '/services',
      {
        name: 'checkout journey',
        check_type: 'MULTISTEP',
        endpoint: 'https://shop.example',
        locations: [location],
        options: {
          steps: [{ name: 'sign in', method: 'POST', url: '/login', extract: [{ name: 'token', source: 'json', property: '$.token' }] }, { name: 'basket', url: '/basket' }],
          assertions: [{ source: 'response_time_ms', comparison: 'less_than', target: 800 }],
          save_failed_response: true,
        },
      },
      owner.token,
    );
    expect(created.status, created.text).to.equal(201);
    const service = created.body as { id: string };

    const agent = await connectScriptedAgent(h.controlPlane.running.grpcPort, registered.body.token);
    try {
      await poll(() => agent.held.has(service.id), { what: 'the service assigned to the lab agent' });
      const page = await h.signedInPage(owner, `/services/${service.id}`);
      await page.getByRole('heading', { name: 'checkout journey', level: 1 }).waitFor();
      const accepted = await agent.sendResults([
        {
          serviceId: service.id,
          ok: false,
          responseTimeMs: 912,
          message: 'step basket: assertion failed',
          details: {
            assertions: [{ source: 'response_time_ms', comparison: 'less_than', target: 800, actual: '912', passed: false }],
            steps: [
              { name: 'sign in', method: 'POST', status_code: 200, ok: true, message: 'HTTP 200', response_time_ms: 300, connect_ms: 12, extracted: ['token'], a_future_key: { x: 1 } },
              {
                name: 'basket',
                status_code: 503,
                ok: false,
                message: 'HTTP 503',
                response_time_ms: 612,
                assertions: [{ source: 'status', comparison: 'equals', target: 200, actual: '503', passed: false }],
              },
            ],
            response: { status: 503, headers: { 'retry-after': '30' }, body: 'basket service unavailable' },
          },
        },
      ]);
      expect(accepted).to.equal(1);

      const latest = page.getByRole('region', { name: 'Latest result' });
      await latest.getByRole('table', { name: 'Assertions', exact: true }).waitFor();
      expect(await rowCells(page, 'Assertions', 'Response time')).to.deep.equal(['Response time (ms)', '', 'less than', '800', '912', 'Failed']);
      const basket = latest.getByRole('listitem', { name: 'Step 2: basket' });
      await basket.getByText('Failed', { exact: true }).first().waitFor();
      expect(await rowCells(page, 'Assertions of step 2', 'Status')).to.deep.equal(['Status', '', 'equals', '200', '503', 'Failed']);
      const signIn = latest.getByRole('listitem', { name: 'Step 1: sign in' });
      await signIn.getByText('OK', { exact: true }).waitFor();
      await signIn.getByText('POST · status 200 · 300 ms · connect 12 ms · extracted token').waitFor();
      await latest.getByRole('region', { name: 'Saved response' }).getByText('basket service unavailable').waitFor();
      await latest.getByText('retry-after: 30').waitFor();
    } finally {
      agent.close();
    }
  });
});
