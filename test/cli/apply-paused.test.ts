// `paused` in outpost.yaml: apply pauses and resumes a service, export writes what the
// server holds, and the exported file applies as a no-op.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const file = (paused?: boolean) => `
services:
  - name: batch jobs
    check_type: http
    endpoint: http://127.0.0.1:9/
${paused === undefined ? '' : `    paused: ${paused}\n`}`;

describe('outpost apply and export: paused services', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  let env: Record<string, string>;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-paused');
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'member') };
  });
  after(() => cp?.stop());

  const apply = (text: string) => runCli(['apply', '-f', '-'], env, text);
  const service = async () => ((await cp.api.get('/services', user.token)).body as { id: string; name: string; paused: boolean }[]).find((s) => s.name === 'batch jobs')!;

  it('creates a service paused, exports it as paused, and the export applies as a no-op', async () => {
    const created = await apply(file(true));
    expect(created.code, created.stderr).to.equal(0);
    expect((await service()).paused).to.equal(true);

    const exported = await runCli(['export'], env);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.contain('paused: true');
    const round = await apply(exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('resumes it when the file says paused: false, or says nothing (the default)', async () => {
    const resumed = await apply(file(false));
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(resumed.stdout).to.contain('~ update service "batch jobs"\n    paused: true -> false');
    expect((await service()).paused).to.equal(false);
    expect((await apply(file())).stdout).to.contain('No changes');

    expect((await cp.api.put(`/services/${(await service()).id}`, { paused: true }, user.token)).status).to.equal(200);
    const again = await apply(file());
    expect(again.stdout).to.contain('paused: true -> false');
    expect((await service()).paused).to.equal(false);
  });

  it('refuses a paused that is not a boolean, naming its line', async () => {
    const run = await apply(file().replace('endpoint: http://127.0.0.1:9/', 'endpoint: http://127.0.0.1:9/\n    paused: sometimes'));
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/stdin:6:\d+: services\.0\.paused/);
  });
});
