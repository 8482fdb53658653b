// Teams: CRUD with roles and isolation, and teams as notification targets of rules and
// escalation steps (each member gets an e-mail, through a real SMTP server on loopback).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';

describe('teams', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let smtp: SmtpSink;
  const clock = new MovableClock();

  before(async () => {
    smtp = await startSmtpSink();
    cp = await startTestControlPlane({
      env: smtp.env,
      start: { clock, retry: { maxAttempts: 3, baseDelayMs: 50 }, jobIntervalMs: 100 },
    });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await smtp?.close();
  });

  /** An owner with two colleagues in the organization. */
  async function organization(label: string) {
    const owner = await cp.api.newUser(`${label}-owner`);
    const colleagues: TestUser[] = [];
    for (const n of [1, 2]) {
      const u = await cp.api.newUser(`${label}-colleague${n}`);
      expect((await cp.api.post('/members', { email: u.email, role: 'member' }, owner.token)).status).to.equal(201);
      colleagues.push(u);
    }
    return { owner, colleagues };
  }
  const team = async (owner: TestUser, name: string, members: TestUser[]) => {
    const r = await cp.api.post('/teams', { name, member_ids: members.map((m) => m.userId) }, owner.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));

  describe('CRUD', () => {
    it('creates, lists, reads, changes only what is sent, and deletes a team', async () => {
      const { owner, colleagues } = await organization('team-crud');
      const [a, b] = colleagues as [TestUser, TestUser];
      const created = await cp.api.post('/teams', { name: ' Database on-call ', member_ids: [a.userId, a.userId, owner.userId] }, owner.token);
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ name: 'Database on-call', organization_id: owner.orgId });
      expect(created.body.member_ids).to.have.members([a.userId, owner.userId]).and.have.length(2);
      expect(created.body.members.find((m: { user_id: string }) => m.user_id === a.userId)).to.include({ email: a.email });
      const id = created.body.id;

      expect((await cp.api.get('/teams', owner.token)).body.map((t: { id: string }) => t.id)).to.deep.equal([id]);
      expect((await cp.api.get(`/teams/${id}`, owner.token)).body).to.deep.equal(created.body);
      const renamed = await cp.api.put(`/teams/${id}`, { name: 'DB' }, owner.token);
      expect(renamed.status).to.equal(200);
      expect(renamed.body.member_ids, 'members kept').to.have.members([a.userId, owner.userId]);
      const moved = await cp.api.put(`/teams/${id}`, { ...renamed.body, member_ids: [b.userId] }, owner.token);
      expect(moved.status, 'the object read may be sent back').to.equal(200);
      expect(moved.body).to.include({ name: 'DB' });
      expect(moved.body.member_ids).to.deep.equal([b.userId]);
      expect((await cp.api.put(`/teams/${id}`, { member_ids: [] }, owner.token)).body.member_ids).to.deep.equal([]);

      expect((await cp.api.del(`/teams/${id}`, owner.token)).status).to.equal(204);
      expect((await cp.api.get(`/teams/${id}`, owner.token)).status).to.equal(404);
      expect((await cp.api.del(`/teams/${id}`, owner.token)).status).to.equal(404);
    });

    it('answers 400 for bad input, naming people who are not members, and 409 for a name taken in the organization', async () => {
      const { owner } = await organization('team-bad');
      const outsider = await cp.api.newUser('team-outsider');
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 7 }, { name: 'x', member_ids: ['nobody'] }, { name: 'x', member_ids: 'all' }, { name: 'x', colour: 'red' }]) {
        const r = await cp.api.post('/teams', body, owner.token);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error, JSON.stringify(body)).to.be.a('string');
      }
      const stranger = await cp.api.post('/teams', { name: 'x', member_ids: [outsider.userId] }, owner.token);
      expect(stranger.status).to.equal(400);
      expect(stranger.body.error).to.include(outsider.userId);
      await team(owner, 'Ops', []);
      expect((await cp.api.post('/teams', { name: 'ops' }, owner.token)).status, 'names are unique ignoring case').to.equal(409);
      expect((await cp.api.post('/teams', { name: 'Ops' }, outsider.token)).status, 'in its own organization only').to.equal(201);
      const other = await team(owner, 'Other', []);
      expect((await cp.api.put(`/teams/${other.id}`, { name: 'OPS' }, owner.token)).status).to.equal(409);
      expect((await cp.api.get('/teams/not-a-uuid', owner.token)).status).to.equal(400);
    });

    it('lets admins and owners manage teams; members and viewers only read', async () => {
      const { owner } = await organization('team-roles');
      const t = await team(owner, 'Readers', []);
      for (const role of ['viewer', 'member'] as const) {
        const key = await cp.api.keyWithRole(owner, role);
        expect((await cp.api.get(`/teams/${t.id}`, key)).status, role).to.equal(200);
        expect((await cp.api.post('/teams', { name: role }, key)).status, role).to.equal(403);
        expect((await cp.api.put(`/teams/${t.id}`, { name: role }, key)).status, role).to.equal(403);
        expect((await cp.api.del(`/teams/${t.id}`, key)).status, role).to.equal(403);
      }
      const admin = await cp.api.keyWithRole(owner, 'admin');
      expect((await cp.api.post('/teams', { name: 'by an admin' }, admin)).status).to.equal(201);
      expect((await cp.api.put(`/teams/${t.id}`, { name: 'renamed by an admin' }, admin)).status).to.equal(200);
    });

    it("answers 404 for another organization's team on every route and as a notification target", async () => {
      const { owner } = await organization('team-iso');
      const intruder = await cp.api.newUser('team-intruder');
      const t = await team(owner, 'Private', []);
      const replies = await Promise.all([
        cp.api.get(`/teams/${t.id}`, intruder.token),
        cp.api.put(`/teams/${t.id}`, { name: 'mine' }, intruder.token),
        cp.api.del(`/teams/${t.id}`, intruder.token),
        cp.api.post('/alert-rules', { name: 'x', severity: 'info', condition: { team_ids: [t.id] } }, intruder.token),
        cp.api.post('/escalation-policies', { name: 'x', steps: [{ delay_minutes: 0, team_ids: [t.id] }] }, intruder.token),
      ]);
      expect(replies.map((r) => r.status)).to.deep.equal([404, 404, 404, 404, 404]);
      expect((await cp.api.get('/teams', intruder.token)).body).to.deep.equal([]);
      expect((await cp.api.get(`/teams/${t.id}`, owner.token)).body.name).to.equal('Private');
    });

    it('drops people from the teams of an organization they leave', async () => {
      const { owner, colleagues } = await organization('team-leave');
      const [a, b] = colleagues as [TestUser, TestUser];
      const t = await team(owner, 'Leavers', [a, b]);
      expect((await cp.api.del(`/members/${a.userId}`, owner.token)).status).to.equal(204);
      expect((await cp.api.get(`/teams/${t.id}`, owner.token)).body.member_ids).to.deep.equal([b.userId]);
    });
  });

  describe('as notification targets', () => {
    const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
    const recover = (serviceId: string) => agent.sendResults([{ serviceId, ok: true }]);

    it("e-mails each member of a rule's teams once per event, when the alert opens and when it resolves", async () => {
      const { owner, colleagues } = await organization('team-rule');
      const [a, b] = colleagues as [TestUser, TestUser];
      const service = (await cp.api.post('/services', { name: 'team-rule-svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token)).body;
      const dba = await team(owner, 'DBA', [a]);
      const sre = await team(owner, 'SRE', [a, owner]);
      const rule = await cp.api.post('/alert-rules', { name: 'down', severity: 'critical', service_id: service.id, condition: { team_ids: [dba.id, sre.id] } }, owner.token);
      expect(rule.status, rule.text).to.equal(201);
      expect(rule.body.condition.team_ids).to.deep.equal([dba.id, sre.id]);

      await fail(service.id);
      await poll(() => mailsTo(a.email).length >= 1 && mailsTo(owner.email).length >= 1, { what: 'e-mails to the team members' });
      const [alert] = (await cp.api.get('/alerts', owner.token)).body;
      const deliveries = (await cp.api.get(`/alerts/${alert.id}/deliveries`, owner.token)).body;
      expect(deliveries.map((d: { recipient: string; channel_id: string | null }) => [d.recipient, d.channel_id])).to.have.deep.members([
        [a.email, null],
        [owner.email, null],
      ]);
      expect(mailsTo(b.email), 'not in a targeted team').to.deep.equal([]);
      expect(mailsTo(a.email)[0]!.text).to.include('team-rule-svc is RED');

      await recover(service.id);
      await poll(() => mailsTo(a.email).length >= 2 && mailsTo(owner.email).length >= 2, { what: 'the resolve e-mails' });
      expect(mailsTo(a.email), 'one e-mail per event though in two teams').to.have.length(2);
      expect(mailsTo(a.email)[1]!.text).to.match(/RESOLVED/i);
    });

    it("e-mails a step's team when the escalation reaches it", async () => {
      const { owner, colleagues } = await organization('team-escalation');
      const [a] = colleagues as [TestUser];
      const service = (await cp.api.post('/services', { name: 'team-esc-svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token)).body;
      const oncall = await team(owner, 'On-call', [a]);
      const policy = await cp.api.post('/escalation-policies', { name: 'page the team', steps: [{ delay_minutes: 5, team_ids: [oncall.id] }] }, owner.token);
      expect(policy.status, policy.text).to.equal(201);
      expect(policy.body.steps).to.deep.equal([{ delay_minutes: 5, channel_ids: [], team_ids: [oncall.id] }]);
      await cp.api.post('/alert-rules', { name: 'escalate', severity: 'critical', service_id: service.id, condition: { escalation_policy_id: policy.body.id } }, owner.token);

      await fail(service.id);
      await poll(async () => (await cp.api.get('/alerts', owner.token)).body.length === 1, { what: 'the alert' });
      expect(mailsTo(a.email), 'nobody before the delay').to.deep.equal([]);
      clock.advance(5 * 60_000 + 1_000);
      expect(await cp.running.runEscalations()).to.equal(1);
      await poll(() => mailsTo(a.email).length === 1, { what: "the step's e-mail" });
    });

    it('refuses a step that notifies nobody', async () => {
      const { owner } = await organization('team-step');
      const r = await cp.api.post('/escalation-policies', { name: 'x', steps: [{ delay_minutes: 0, channel_ids: [], team_ids: [] }] }, owner.token);
      expect(r.status).to.equal(400);
      expect(r.body.error).to.match(/channel or team/);
      expect((await cp.api.post('/alert-rules', { name: 'x', severity: 'info', condition: { team_ids: [randomUUID()] } }, owner.token)).status).to.equal(404);
    });
  });
});
