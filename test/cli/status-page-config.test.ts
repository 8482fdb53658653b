// Status pages and their maintenance in outpost.yaml: access (a password from the environment,
// an address allowlist, members), custom domain, groups, automatic incidents, and the pages a
// maintenance window announces. The CLI runs as its own process against a real control plane.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

// Slugs and domains are unique across organizations.
const tag = randomBytes(4).toString('hex');
const SHOP = `shop-${tag}`;
const STAFF = `staff-${tag}`;
const OFFICE = `office-${tag}`;
const DOMAIN = `status-${tag}.example.com`;

// As `outpost export` writes these sections, so that the export of what it applied is this file.
const canonical = `
services:
  - name: web
    check_type: TCP
    endpoint: 127.0.0.1:9
  - name: db
    check_type: TCP
    endpoint: 127.0.0.1:9
  - name: queue
    check_type: TCP
    endpoint: 127.0.0.1:9
maintenance_windows:
  - name: db upgrade
    starts_at: 2030-01-01T00:00:00.000Z
    ends_at: 2030-01-01T02:00:00.000Z
    services:
      - db
    status_pages:
      - ${SHOP}
      - ${STAFF}
    announce_hours_before: 48
status_pages:
  - slug: ${SHOP}
    title: Shop status
    description: null
    access: public
    ip_allowlist: []
    custom_domain: ${DOMAIN}
    auto_incidents: false
    services:
      - queue
    groups:
      - name: Storefront
        services:
          - web
      - name: Back end
        services:
          - db
  - slug: ${STAFF}
    title: Staff status
    description: For the team
    access: password
    ip_allowlist: []
    custom_domain: null
    auto_incidents: true
    services:
      - web
    groups: []
  - slug: ${OFFICE}
    title: Office status
    description: null
    access: ip_allowlist
    ip_allowlist:
      - 10.0.0.0/8
      - 2001:db8::/32
    custom_domain: null
    auto_incidents: true
    services: []
    groups: []
`;
/** The file a user keeps: the password page's password from the environment. */
const withPassword = canonical.replace('    access: password\n', '    access: password\n    password_env: STAFF_PAGE_PASSWORD\n');

describe('outpost apply and export: status pages and announced maintenance', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let user: TestUser;
  let dir: string;
  let env: Record<string, string>;

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const apply = (text: string, extra: Record<string, string> = {}, ...flags: string[]) => runCli(['apply', '-f', write('outpost.yaml', text), ...flags], { ...env, ...extra });
  const pages = async () => Object.fromEntries(((await cp.api.get('/status-pages', user.token)).body as any[]).map((p) => [p.slug, p]));
  const services = async () => Object.fromEntries(((await cp.api.get('/services', user.token)).body as any[]).map((s) => [s.name, s.id]));
  const unlock = async (password: string) => (await cp.api.post(`/status-pages/${STAFF}/unlock`, { password })).status;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-pages');
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-pages-'));
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
  });

  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates pages with their access, domain, groups and automatic incidents, and a window announcing two of them', async () => {
    const run = await apply(withPassword, { STAFF_PAGE_PASSWORD: 'staff-secret-1' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('Plan: 7 to create');
    expect(run.stdout).not.to.contain('staff-secret-1');

    const ids = await services();
    const now = await pages();
    expect(now[SHOP]).to.deep.include({ access: 'public', public: true, custom_domain: DOMAIN, auto_incidents: false, password_set: false });
    expect(now[SHOP].groups).to.deep.equal([
      { name: 'Storefront', service_ids: [ids.web] },
      { name: 'Back end', service_ids: [ids.db] },
    ]);
    expect(now[SHOP].service_ids).to.deep.equal([ids.queue, ids.web, ids.db]);
    expect(now[STAFF]).to.deep.include({ access: 'password', public: false, password_set: true, description: 'For the team' });
    expect(now[OFFICE]).to.deep.include({ access: 'ip_allowlist' });
    expect(now[OFFICE].ip_allowlist).to.deep.equal(['10.0.0.0/8', '2001:db8::/32']);
    expect(await unlock('staff-secret-1')).to.equal(204);

    const [window] = (await cp.api.get('/maintenance-windows', user.token)).body as any[];
    expect(window).to.deep.include({ announce_hours_before: 48, service_ids: [ids.db] });
    expect(window.status_page_ids).to.have.members([now[SHOP].id, now[STAFF].id]);
  });

  it('changes nothing on a second apply, the password compared by the page itself, and keeps it when the variable is unset', async () => {
    const again = await apply(withPassword, { STAFF_PAGE_PASSWORD: 'staff-secret-1' });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout.trim()).to.equal('No changes: the organization matches the file.');
    const unset = await apply(withPassword);
    expect(unset.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('exports the file it applied: the new fields, and no password', async () => {
    const exported = await runCli(['export'], env);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).not.to.contain('password_env').and.not.to.contain('staff-secret');
    const written = parse(exported.stdout);
    const wanted = parse(canonical);
    expect(written.status_pages).to.deep.equal(wanted.status_pages);
    expect(written.maintenance_windows).to.deep.equal(wanted.maintenance_windows);

    // Without the password in the environment, the export applies as a no-op.
    const round = await runCli(['apply', '-f', '-', '--prune'], env, exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('sends a changed password, masked in the plan', async () => {
    const run = await apply(withPassword, { STAFF_PAGE_PASSWORD: 'staff-secret-2' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`~ update status page "${STAFF}"\n    password: (secret) -> (secret)\nPlan: 0 to create, 1 to update`);
    expect(run.stdout).not.to.contain('staff-secret');
    expect(await unlock('staff-secret-2')).to.equal(204);
    expect(await unlock('staff-secret-1')).to.equal(400);
  });

  it('moves a service out of its group and retires the domain, sending the listing whole; public: false still means members', async () => {
    const edited = withPassword
      .replace(`    custom_domain: ${DOMAIN}\n`, '    custom_domain: null\n')
      .replace('    services:\n      - queue\n', '    services:\n      - queue\n      - db\n')
      .replace('      - name: Back end\n        services:\n          - db\n', '')
      .replace('    access: ip_allowlist\n', '    public: false\n')
      .replace('    ip_allowlist:\n      - 10.0.0.0/8\n      - 2001:db8::/32\n', '    ip_allowlist: []\n');
    const run = await apply(edited, { STAFF_PAGE_PASSWORD: 'staff-secret-2' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`~ update status page "${SHOP}"\n    custom_domain: "${DOMAIN}" -> null\n    services: ["queue"] -> ["queue","db"]\n    groups: `);
    expect(run.stdout).to.contain(`~ update status page "${OFFICE}"\n    access: "ip_allowlist" -> "members"`);

    const ids = await services();
    const now = await pages();
    expect(now[SHOP]).to.deep.include({ custom_domain: null, service_ids: [ids.queue, ids.db, ids.web] });
    expect(now[SHOP].groups).to.deep.equal([{ name: 'Storefront', service_ids: [ids.web] }]);
    expect(now[OFFICE]).to.deep.include({ access: 'members', public: false });
    expect((await apply(edited, { STAFF_PAGE_PASSWORD: 'staff-secret-2' })).stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('refuses, naming their lines and before sending anything, what the API would refuse', async () => {
    const before = await pages();
    const lineOf = (text: string, what: string) => text.split('\n').findIndex((l) => l.includes(what)) + 1;

    const unknownPage = withPassword.replace(`      - ${STAFF}\n`, '      - nowhere\n');
    const missing = await apply(unknownPage, { STAFF_PAGE_PASSWORD: 'staff-secret-2' });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain(`outpost.yaml:${lineOf(unknownPage, '- nowhere')}:`).and.to.contain('no status page "nowhere"');

    const newPage = `status_pages:\n  - slug: new-${tag}\n    title: New\n    access: password\n    password_env: NEW_PAGE_PASSWORD\n`;
    const unset = await apply(newPage);
    expect(unset.code).to.equal(1);
    expect(unset.stderr).to.contain('outpost.yaml:5:').and.to.contain('environment variable NEW_PAGE_PASSWORD is not set (needed for the password of status page');
    const short = await apply(newPage, { NEW_PAGE_PASSWORD: 'short' });
    expect(short.stderr).to.contain('outpost.yaml:5:').and.to.contain('must hold a password of 8 to 200 characters');

    const contradiction = await apply(`status_pages:\n  - slug: odd-${tag}\n    title: Odd\n    public: true\n    access: members\n`);
    expect(contradiction.code).to.equal(1);
    expect(contradiction.stderr).to.contain('outpost.yaml:4:').and.to.contain('public: true contradicts access: members');
    const address = await apply(`status_pages:\n  - slug: odd-${tag}\n    title: Odd\n    access: ip_allowlist\n    ip_allowlist: [10.0.0.0/8, not-an-address]\n`);
    expect(address.code).to.equal(1);
    expect(address.stderr).to.contain('outpost.yaml:5:').and.to.contain('"not-an-address" is not an IPv4 or IPv6 address or CIDR range');

    expect(await pages()).to.deep.equal(before);
  });
});
