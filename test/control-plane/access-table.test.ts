// Roles and organization isolation on every route of the API, as one table: a viewer is
// refused every write (403), and another organization's ids answer 404 on every route that
// takes one — before anything is changed.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { sql } from '../support/sql.js';

const UUID_IN_PATH = /\/[0-9a-f]{8}-[0-9a-f]{4}-/;

type Route = readonly [method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown];

describe('access on every route', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let owner: TestUser;
  let colleague: TestUser;
  let ids: Record<string, string>;

  before(async () => {
    cp = await startTestControlPlane();
    agent = await connectReadyAgent(cp.running);
    owner = await cp.api.newUser('table-owner');
    colleague = await cp.api.newUser('table-colleague');
    const made = async (path: string, body: unknown) => {
      const r = await cp.api.post(path, body, owner.token);
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    const service = await made('/services', { name: 'svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 });
    const rule = await made('/alert-rules', { name: 'red', severity: 'critical', service_id: service });
    await agent.sendResults([{ serviceId: service, ok: false }]);
    const [alert] = await sql<{ id: string }>('select id from alerts where service_id = $1', [service]);
    await cp.api.post('/members', { email: colleague.email, role: 'member' }, owner.token);
    const channel = await made('/notification-channels', { name: 'c', channel_type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } });
    ids = {
      service,
      rule,
      alert: alert!.id,
      channel,
      window: await made('/maintenance-windows', { name: 'w', starts_at: new Date(Date.now() + 3_600_000).toISOString(), ends_at: new Date(Date.now() + 7_200_000).toISOString() }),
      policy: await made('/escalation-policies', { name: 'p', steps: [{ delay_minutes: 5, channel_ids: [channel] }] }),
      agent: await made('/agents', { name: 'a', location: 'dc-1' }),
      apiKey: await made('/api-keys', { name: 'k', role: 'member' }),
      heartbeat: await made('/heartbeats', { name: 'h', interval_seconds: 60, grace_seconds: 60 }),
      sslCertificate: await made('/ssl-certificates', { hostname: 'example.com', location: 'nowhere' }),
      team: await made('/teams', { name: 'on-call', member_ids: [colleague.userId] }),
      statusPage: await made('/status-pages', { slug: `table-${owner.userId.slice(0, 8)}`, title: 't', service_ids: [service] }),
      secret: await made('/secrets', { name: 'TABLE_TOKEN', value: 'v' }),
      member: colleague.userId,
    };
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  /** Every route that writes, with a body that would be valid for the owner. */
  const writes = (): Route[] => [
    ['POST', '/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }],
    ['PUT', `/services/${ids.service}`, { name: 'x' }],
    ['DELETE', `/services/${ids.service}`],
    ['POST', `/services/${ids.service}/check`],
    ['POST', '/alert-rules', { name: 'x', severity: 'info' }],
    ['PUT', `/alert-rules/${ids.rule}`, { name: 'x' }],
    ['DELETE', `/alert-rules/${ids.rule}`],
    ['POST', `/alerts/${ids.alert}/acknowledge`],
    ['POST', `/alerts/${ids.alert}/resolve`],
    ['POST', '/notification-channels', { name: 'x', channel_type: 'chat', config: { webhook_url: 'http://127.0.0.1:9/chat' } }],
    ['PUT', `/notification-channels/${ids.channel}`, { name: 'x' }],
    ['DELETE', `/notification-channels/${ids.channel}`],
    ['POST', `/notification-channels/${ids.channel}/test`],
    ['POST', '/maintenance-windows', { name: 'x', starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 1000).toISOString() }],
    ['PUT', `/maintenance-windows/${ids.window}`, { name: 'x' }],
    ['DELETE', `/maintenance-windows/${ids.window}`],
    ['POST', '/escalation-policies', { name: 'x', steps: [{ delay_minutes: 1, channel_ids: [ids.channel] }] }],
    ['PUT', `/escalation-policies/${ids.policy}`, { name: 'x' }],
    ['DELETE', `/escalation-policies/${ids.policy}`],
    ['POST', '/agents', { name: 'x', location: 'x' }],
    ['POST', `/agents/${ids.agent}/token`],
    ['DELETE', `/agents/${ids.agent}/previous-token`],
    ['DELETE', `/agents/${ids.agent}`],
    ['POST', '/api-keys', { name: 'x', role: 'viewer' }],
    ['DELETE', `/api-keys/${ids.apiKey}`],
    ['POST', '/members', { email: 'nobody@example.com', role: 'viewer' }],
    ['PUT', `/members/${ids.member}`, { role: 'viewer' }],
    ['DELETE', `/members/${ids.member}`],
    ['PUT', '/organization', { name: 'x' }],
    ['POST', '/heartbeats', { name: 'x', interval_seconds: 60, grace_seconds: 60 }],
    ['PUT', `/heartbeats/${ids.heartbeat}`, { name: 'x' }],
    ['DELETE', `/heartbeats/${ids.heartbeat}`],
    ['POST', '/teams', { name: 'x' }],
    ['PUT', `/teams/${ids.team}`, { name: 'x' }],
    ['DELETE', `/teams/${ids.team}`],
    ['POST', '/ssl-certificates', { hostname: 'example.org', location: 'nowhere' }],
    ['PUT', `/ssl-certificates/${ids.sslCertificate}`, { warn_days: 30 }],
    ['DELETE', `/ssl-certificates/${ids.sslCertificate}`],
    ['POST', `/ssl-certificates/${ids.sslCertificate}/check`],
    ['POST', '/status-pages', { slug: 'x-table', title: 'x' }],
    ['PUT', `/status-pages/${ids.statusPage}`, { title: 'x' }],
    ['DELETE', `/status-pages/${ids.statusPage}`],
    ['POST', '/services/test', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', location: 'nowhere' }],
    ['POST', '/secrets', { name: 'OTHER', value: 'v' }],
    ['PUT', `/secrets/${ids.secret}`, { value: 'w' }],
    ['DELETE', `/secrets/${ids.secret}`],
  ];

  /** Every route that names one resource by id, reads included. */
  const byId = (): Route[] => [
    ...writes().filter(([, path]) => UUID_IN_PATH.test(path)),
    ['GET', `/services/${ids.service}`],
    ['GET', `/services/${ids.service}/checks`],
    ['GET', `/services/${ids.service}/uptime`],
    ['GET', `/services/${ids.service}/metrics`],
    ['GET', `/alert-rules/${ids.rule}`],
    ['GET', `/alerts/${ids.alert}`],
    ['GET', `/alerts/${ids.alert}/deliveries`],
    ['GET', `/notification-channels/${ids.channel}`],
    ['GET', `/maintenance-windows/${ids.window}`],
    ['GET', `/escalation-policies/${ids.policy}`],
    ['GET', `/agents/${ids.agent}`],
    ['GET', `/api-keys/${ids.apiKey}`],
    ['GET', `/heartbeats/${ids.heartbeat}`],
    ['GET', `/ssl-certificates/${ids.sslCertificate}`],
    ['GET', `/teams/${ids.team}`],
    ['GET', `/status-pages/${ids.statusPage}`],
    ['GET', `/secrets/${ids.secret}`],
  ];

  it('refuses every write to a viewer with 403', async () => {
    const viewer = await cp.api.keyWithRole(owner, 'viewer');
    const refused: string[] = [];
    for (const [method, path, body] of writes()) {
      const r = await cp.api.request(method, path, { json: body, token: viewer });
      if (r.status !== 403) refused.push(`${method} ${path} → ${r.status} ${r.text}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it('refuses a member every write of the admin matters (members, teams, API keys, agents, the organization) with 403', async () => {
    const member = await cp.api.keyWithRole(owner, 'member');
    const adminOnly = writes().filter(([, path]) => /^\/(members|teams|api-keys|agents|organization|secrets)\b/.test(path));
    expect(adminOnly.length).to.be.greaterThan(10);
    const refused: string[] = [];
    for (const [method, path, body] of adminOnly) {
      const r = await cp.api.request(method, path, { json: body, token: member });
      if (r.status !== 403) refused.push(`${method} ${path} → ${r.status} ${r.text}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it("answers 404 on every route given another organization's id", async () => {
    const intruder = await cp.api.newUser('table-intruder');
    const answered: string[] = [];
    for (const [method, path, body] of byId()) {
      const r = await cp.api.request(method, path, { json: body, token: intruder.token });
      if (r.status !== 404) answered.push(`${method} ${path} → ${r.status} ${r.text}`);
    }
    expect(answered).to.deep.equal([]);
  });

  it('left everything as it was', async () => {
    for (const path of [`/services/${ids.service}`, `/alert-rules/${ids.rule}`, `/notification-channels/${ids.channel}`, `/agents/${ids.agent}`, `/status-pages/${ids.statusPage}`, `/teams/${ids.team}`]) {
      const r = await cp.api.get(path, owner.token);
      expect(r.status, path).to.equal(200);
      expect(r.body.name ?? r.body.title, path).to.not.equal('x');
    }
    expect((await cp.api.get(`/alerts/${ids.alert}`, owner.token)).body.status).to.equal('firing');
    expect((await cp.api.get('/members', owner.token)).body.map((m: { user_id: string }) => m.user_id)).to.include(colleague.userId);
  });
});
