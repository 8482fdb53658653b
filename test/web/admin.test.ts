// Agents, locations, status pages, organizations, roles and API keys in a real browser.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';

describe('dashboard: agents, locations, status pages and administration', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  let target: Server;
  let targetUrl: string;

  before(async function () {
    target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    h = await startDashboard(this, { embeddedAgent: true });
  });
  after(async () => {
    await h?.stop();
    target?.close();
  });

  /** A page signed in as `user` acting in another organization, as the switcher would leave it. */
  async function pageInOrganization(user: TestUser, organizationId: string, path: string): Promise<Page> {
    const switched = await h.controlPlane.api.post(`/organizations/${organizationId}/token`, {}, user.token);
    expect(switched.status).to.equal(200);
    const { page } = await h.newPage();
    await page.goto('/sign-in');
    const session = { token: switched.body.token, userId: user.userId, organizationId, email: user.email };
    // A string, so that this Node-side file needs no DOM types.
    await page.evaluate(`localStorage.setItem('outpost.session', ${JSON.stringify(JSON.stringify(session))})`);
    await page.goto(path);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  }

  it('creates an agent, shows its token once with the install command, and lists it on its location page', async () => {
    const owner = await h.controlPlane.api.newUser('agents');
    const page = await h.signedInPage(owner, '/agents');

    await page.getByRole('button', { name: 'Create agent' }).click();
    const create = page.getByRole('dialog', { name: 'Create agent' });
    await create.getByLabel('Name').fill('berlin-1');
    await create.getByLabel('Location').fill('office berlin');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    await poll(async () => (await create.getByLabel('Location').getAttribute('aria-invalid')) === 'true', { what: 'the location field marked invalid' });

    await create.getByLabel('Location').fill('office-berlin');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: 'Agent berlin-1 created' });
    const token = await shown.getByLabel('Token').inputValue();
    expect(token).to.match(/^opa_/);
    const grpc = `127.0.0.1:${h.controlPlane.running.grpcPort}`;
    const fromPackage = () => shown.locator('pre').filter({ hasText: 'apt install' }).innerText();
    expect(await fromPackage()).to.equal(`sudo apt install ./outpost-agent_*_amd64.deb\nsudo outpost-agent install --server ${grpc} --token ${token} --location office-berlin`);
    expect(await shown.getByLabel('Control plane gRPC address').inputValue()).to.equal(grpc);
    await shown.getByLabel('Control plane gRPC address').fill('agents.example.net:19090');
    expect(await fromPackage()).to.contain('--server agents.example.net:19090');
    expect(await shown.locator('pre').filter({ hasText: 'dist/agent/src/cli.js install' }).innerText()).to.contain('--server agents.example.net:19090');
    await shown.getByRole('button', { name: 'Copy package commands' }).waitFor();
    await shown.getByRole('button', { name: 'Copy checkout commands' }).waitFor();
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('row').filter({ hasText: 'berlin-1' });
    await row.getByText('offline').waitFor();
    expect(await page.getByText(token).count()).to.equal(0);

    await row.getByRole('link', { name: 'office-berlin' }).click();
    await page.getByRole('heading', { name: 'Location office-berlin', level: 1 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'berlin-1' }).getByText('offline').waitFor();

    await page.goto('/locations');
    await page.getByRole('row').filter({ hasText: 'office-berlin' }).getByText('0 of 1 online').waitFor();
  });

  it('publishes a status page created in the UI: the service with its status and 90 daily bars, without sign-in', async () => {
    const owner = await h.controlPlane.api.newUser('status');
    const service = await h.controlPlane.api.post('/services', { name: 'Checkout API', endpoint: targetUrl, check_type: 'HTTP' }, owner.token);
    expect(service.status).to.equal(201);
    await poll(async () => (await h.controlPlane.api.get(`/services/${service.body.id}`, owner.token)).body.status, { timeoutMs: 15_000, what: 'a first result' });

    const page = await h.signedInPage(owner, '/status-pages');
    await page.getByRole('button', { name: 'Create status page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create status page' });
    await dialog.getByLabel('Title').fill('Acme status');
    const slug = `acme-${Date.now()}`;
    await dialog.getByLabel('Slug').fill(slug);
    await dialog.getByLabel('Checkout API').check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'Acme status' }).getByRole('link', { name: `/status/${slug}` }).waitFor();

    const { page: visitor, errors } = await h.newPage();
    await visitor.goto(`/status/${slug}`);
    await visitor.getByRole('heading', { name: 'Acme status', level: 1 }).waitFor();
    const card = visitor.getByRole('listitem').filter({ has: visitor.getByRole('heading', { name: 'Checkout API' }) });
    expect(await card.getByText(/^(GREEN|YELLOW|RED)$/).innerText()).to.match(/^(GREEN|YELLOW|RED)$/);
    const bars = card.getByRole('group', { name: /Daily uptime of Checkout API/ }).getByRole('img');
    expect(await bars.count()).to.equal(90);
    const labels = await Promise.all((await bars.all()).map(async (bar) => (await bar.getAttribute('aria-label')) ?? ''));
    for (const label of labels) expect(label).to.match(/^\d{4}-\d{2}-\d{2}: (\d+(\.\d+)?% up|no data)$/);
    expect(labels.at(-1)).to.match(/% up$/);
    expect(await visitor.getByRole('button', { name: 'Sign out' }).count()).to.equal(0);

    await visitor.goto('/status/no-such-page');
    await visitor.getByRole('heading', { name: 'This status page does not exist' }).waitFor();
    expect(errors).to.deep.equal([]);
  });

  it('switches organization from the top bar and then shows that organization\'s services and role', async () => {
    const person = await h.controlPlane.api.newUser('two-orgs');
    const other = await h.controlPlane.api.newUser('other-owner');
    const added = await h.controlPlane.api.post('/members', { email: person.email, role: 'admin' }, other.token);
    expect(added.status).to.equal(201);
    const created = await h.controlPlane.api.post('/services', { name: 'Other org service', endpoint: targetUrl, check_type: 'HTTP' }, other.token);
    expect(created.status).to.equal(201);
    const otherOrg = (await h.controlPlane.api.get('/organization', other.token)).body;

    const page = await h.signedInPage(person, '/organization');
    await page.getByRole('row').filter({ hasText: otherOrg.name }).getByRole('button', { name: `Switch to ${otherOrg.name}` }).waitFor();
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: `${otherOrg.name} (admin)` });
    await page.waitForURL('**/services');

    await page.goto('/locations/local');
    await page.getByRole('link', { name: 'Other org service' }).waitFor();
    await page.goto('/organization');
    await page.getByRole('row').filter({ hasText: otherOrg.name }).getByText('current').waitFor();
    await page.getByRole('banner').getByText(`${person.email} · admin`).waitFor();
  });

  it('shows a viewer no write buttons on the members, API keys and agents pages', async () => {
    const owner = await h.controlPlane.api.newUser('viewer-org');
    const viewer = await h.controlPlane.api.newUser('viewer');
    expect((await h.controlPlane.api.post('/members', { email: viewer.email, role: 'viewer' }, owner.token)).status).to.equal(201);
    expect((await h.controlPlane.api.post('/agents', { name: 'hq-1', location: 'hq' }, owner.token)).status).to.equal(201);

    const page = await pageInOrganization(viewer, owner.orgId, '/members');
    await page.getByRole('row').filter({ hasText: owner.email }).waitFor();
    expect(await page.getByRole('button', { name: 'Add member' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /Remove/ }).count()).to.equal(0);
    expect(await page.getByRole('combobox', { name: /Role of/ }).count()).to.equal(0);

    await page.goto('/api-keys');
    await page.getByText('Only admins and owners can see and manage API keys.').waitFor();
    expect(await page.getByRole('button', { name: 'Create API key' }).count()).to.equal(0);

    await page.goto('/agents');
    await page.getByRole('row').filter({ hasText: 'hq-1' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create agent' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /Rotate token|Delete/ }).count()).to.equal(0);
  });

  it('shows an API key created in the UI once, and it works', async () => {
    const owner = await h.controlPlane.api.newUser('keys');
    const page = await h.signedInPage(owner, '/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const form = page.getByRole('dialog', { name: 'Create API key' });
    await form.getByLabel('Name').fill('deploy pipeline');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Create', exact: true }).click();

    const shown = page.getByRole('dialog', { name: 'API key deploy pipeline created' });
    const key = await shown.getByLabel('API key').inputValue();
    expect(key).to.match(/^op_/);
    await shown.getByRole('button', { name: 'Copy API key' }).waitFor();
    expect((await h.controlPlane.api.get('/services', key)).status).to.equal(200);
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('row').filter({ hasText: 'deploy pipeline' });
    await row.getByText('viewer').waitFor();
    expect(await page.getByText(key).count()).to.equal(0);
    await page.reload();
    await row.waitFor();
    expect(await page.locator(`input[value="${key}"]`).count()).to.equal(0);

    await row.getByRole('button', { name: 'Delete API key "deploy pipeline"' }).click();
    await page.getByRole('dialog', { name: /Delete API key/ }).getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  });
  it('adds a member by email, changes the role with its select and removes them; an admin cannot grant owner', async () => {
    const owner = await h.controlPlane.api.newUser('members');
    const colleague = await h.controlPlane.api.newUser('colleague');
    const page = await h.signedInPage(owner, '/members');

    await page.getByRole('button', { name: 'Add member' }).click();
    const add = page.getByRole('dialog', { name: 'Add member' });
    await add.getByLabel('Email').fill('nobody-registered@example.com');
    await add.getByRole('button', { name: 'Add member' }).click();
    await add.getByRole('alert').filter({ hasText: /register/ }).waitFor();
    await add.getByLabel('Email').fill(colleague.email);
    await add.getByLabel('Role').selectOption('viewer');
    await add.getByRole('button', { name: 'Add member' }).click();

    const role = page.getByRole('combobox', { name: 'Role of Test colleague' });
    expect(await role.inputValue()).to.equal('viewer');
    await role.selectOption('admin');
    await poll(async () => (await h.controlPlane.api.get('/members', owner.token)).body.find((m: { email: string }) => m.email === colleague.email)?.role === 'admin', {
      what: 'the new role stored',
    });

    const asAdmin = await pageInOrganization(colleague, owner.orgId, '/members');
    await asAdmin.getByRole('row').filter({ hasText: owner.email }).waitFor();
    // The owner outranks an admin: no select or remove for that row, and no owner option anywhere.
    expect(await asAdmin.getByRole('combobox', { name: 'Role of Test members' }).count()).to.equal(0);
    expect(await asAdmin.getByRole('combobox', { name: 'Role of Test colleague' }).locator('option').allInnerTexts()).to.deep.equal(['viewer', 'member', 'admin']);

    await page.getByRole('button', { name: 'Remove Test colleague from the organization' }).click();
    await page.getByRole('dialog', { name: /Remove Test colleague/ }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('row').filter({ hasText: colleague.email }).waitFor({ state: 'detached' });
  });

  it('creates, edits and deletes a team and a certificate watch, with the API\'s field errors at the field', async () => {
    const owner = await h.controlPlane.api.newUser('teams');
    const page = await h.signedInPage(owner, '/teams');
    await page.getByRole('button', { name: 'Create team' }).click();
    let dialog = page.getByRole('dialog', { name: 'Create team' });
    await dialog.getByLabel('Name').fill('On call');
    await dialog.getByLabel(`Test teams (${owner.email})`).check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'On call' }).getByText('Test teams').waitFor();
    await page.getByRole('button', { name: 'Edit team On call' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit team On call' });
    await dialog.getByLabel('Name').fill('Night shift');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row').filter({ hasText: 'Night shift' }).waitFor();
    await page.getByRole('button', { name: 'Delete team "Night shift"' }).click();
    await page.getByRole('dialog', { name: /Delete team/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No teams yet.').waitFor();

    await page.goto('/certificates');
    await page.getByRole('button', { name: 'Create certificate' }).click();
    dialog = page.getByRole('dialog', { name: 'Create certificate' });
    await dialog.getByLabel('Hostname').fill('https://bad/');
    await dialog.getByLabel('CA certificate (PEM)').fill('not a certificate');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await poll(async () => (await dialog.getByLabel('Hostname').getAttribute('aria-invalid')) === 'true', { what: 'the hostname marked invalid' });
    expect(await dialog.getByLabel('CA certificate (PEM)').getAttribute('aria-invalid')).to.equal('true');
    await dialog.getByLabel('Hostname').fill('127.0.0.1');
    await dialog.getByLabel('Port').fill(new URL(targetUrl).port);
    await dialog.getByLabel('CA certificate (PEM)').fill('');
    await dialog.getByLabel('Name', { exact: true }).fill('intranet TLS');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'intranet TLS' });
    await row.getByText(/^(GREEN|YELLOW|RED|PENDING)$/).waitFor();
    await row.getByRole('button', { name: 'Check now intranet TLS' }).click();
    await row.getByText('Check enqueued').waitFor();
    // A plain HTTP port serves no certificate: RED, with the reason beside it.
    await row.getByText('RED').waitFor({ timeout: 15_000 });
    await row.getByRole('button', { name: 'Delete certificate "intranet TLS"' }).click();
    await page.getByRole('dialog', { name: /Delete certificate/ }).getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('offers owners a backup download, which the API allows only to someone owning every organization', async () => {
    const owner = await h.controlPlane.api.newUser('backup');
    // Registering made the viewer an organization of their own, which the owner does not own.
    const viewer = await h.controlPlane.api.newUser('backup-viewer');
    const page = await h.signedInPage(owner, '/organization');
    await page.getByRole('heading', { name: 'Backup' }).waitFor();
    await page.getByRole('button', { name: 'Download a backup' }).click();
    await page.getByRole('alert').filter({ hasText: 'only someone who owns all of them may download it' }).waitFor();

    expect((await h.controlPlane.api.post('/members', { email: viewer.email, role: 'viewer' }, owner.token)).status).to.equal(201);
    const asViewer = await pageInOrganization(viewer, owner.orgId, '/organization');
    await asViewer.getByRole('heading', { name: 'Your organizations' }).waitFor();
    expect(await asViewer.getByRole('button', { name: 'Download a backup' }).count()).to.equal(0);
  });

  it('lets an owner rename the organization and a person change their name and password', async () => {
    const owner = await h.controlPlane.api.newUser('profile');
    const page = await h.signedInPage(owner, '/organization');
    await page.getByLabel('Name').fill('Renamed Inc');
    await page.getByLabel('Slug').fill('Not A Slug');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(async () => (await page.getByLabel('Slug').getAttribute('aria-invalid')) === 'true', { what: 'the slug marked invalid' });
    await page.getByLabel('Slug').fill(`renamed-${Date.now()}`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('combobox', { name: 'Organization' }).getByText('Renamed Inc (owner)').waitFor({ state: 'attached' });

    await page.goto('/profile');
    await page.getByLabel('Name').fill('Ada Byron');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password').fill('a-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: /current password/ }).waitFor();
    await page.getByLabel('Current password').fill(owner.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    const again = await h.controlPlane.api.post('/auth/login', { email: owner.email, password: 'a-new-password' });
    expect(again.status).to.equal(200);
    expect((await h.controlPlane.api.get('/profile', again.body.token)).body.full_name).to.equal('Ada Byron');
    // The new password ended every other session (the API's login), not the page's own.
    expect((await h.controlPlane.api.get('/profile', owner.token)).status).to.equal(401);
    await page.reload();
    await poll(async () => (await page.getByLabel('Name').inputValue()) === 'Ada Byron', { what: 'the profile still shown, signed in' });
  });
});
