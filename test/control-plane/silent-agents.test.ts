// When an agent goes silent (issue 39, item 7), end to end: real agent processes killed and
// restarted against a control plane whose AGENT_OFFLINE_SECONDS is 2, a webhook receiver on
// 127.0.0.1 hearing the alerts; then, with a movable clock and scripted agents, staleness and
// no_data rules, a location gone dark, routing by rule, removal and forgetting of agents.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { tcpListener, type Listener } from '../fixtures/peers/net-fixtures.js';

interface AlertJson {
  id: string;
  kind: string;
  status: string;
  service_id: string | null;
  service_name: string;
  alert_rule_id: string | null;
  agent_id: string | null;
  location: string | null;
  severity: string;
  title: string;
  message: string;
}

const fast = { maxAttempts: 6, baseDelayMs: 50 };

async function orgUser(cp: TestControlPlane, label: string): Promise<TestUser> {
  const user = await cp.api.newUser(label);
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  return user;
}
const alertsOf = async (cp: TestControlPlane, user: TestUser) => (await cp.api.get('/alerts?status=all&limit=1000', user.token)).body as AlertJson[];
const serviceOf = async (cp: TestControlPlane, user: TestUser, id: string) => (await cp.api.get(`/services/${id}`, user.token)).body;
async function webhook(cp: TestControlPlane, user: TestUser, url: string, name = 'hook'): Promise<string> {
  const r = await cp.api.post('/notification-channels', { name, channel_type: 'webhook', config: { url } }, user.token);
  expect(r.status, r.text).to.equal(201);
  return r.body.id;
}
async function service(cp: TestControlPlane, user: TestUser, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const r = await cp.api.post('/services', { check_type: 'TCP', endpoint: '127.0.0.1:9', check_interval_seconds: 3600, ...body }, user.token);
  expect(r.status, r.text).to.equal(201);
  return r.body;
}
async function rule(cp: TestControlPlane, user: TestUser, body: Record<string, unknown>): Promise<string> {
  const r = await cp.api.post('/alert-rules', { severity: 'warning', ...body }, user.token);
  expect(r.status, r.text).to.equal(201);
  return r.body.id;
}

describe('silent agents and stale services', function () {
  this.timeout(120_000);

  describe('agent processes killed and restarted (AGENT_OFFLINE_SECONDS=2)', () => {
    let cp: TestControlPlane;
    let receiver: HttpReceiver;
    let listener: Listener;
    let dir: string;
    const processes: AgentProcess[] = [];
    const scripted: ScriptedAgent[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-silent-'));
      receiver = await startHttpReceiver();
      listener = await tcpListener();
      cp = await startTestControlPlane({ env: { AGENT_OFFLINE_SECONDS: '2' }, start: { retry: fast } });
    });
    after(async () => {
      for (const p of processes) await p.kill('SIGKILL');
      for (const a of scripted) a.close();
      await cp?.stop();
      await receiver?.close();
      await listener?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Starts an agent process (the platform token) in `location`; answers it and its id once it has a session. */
    async function agentProcess(name: string, location: string): Promise<{ process: AgentProcess; id: string }> {
      const dataDir = path.join(dir, name);
      const process = startAgentProcess({ server: `127.0.0.1:${cp.running.grpcPort}`, token: cp.running.agentToken, location, dataDir });
      processes.push(process);
      const idFile = path.join(dataDir, 'agent-id');
      await poll(() => existsSync(idFile), { what: `${name}'s id`, timeoutMs: 30_000 });
      const id = readFileSync(idFile, 'utf8').trim();
      await poll(async () => (await sql('select 1 from agent_sessions where agent_id = $1', [id])).length === 1, { what: `${name} connected`, timeoutMs: 30_000 });
      return { process, id };
    }

    it('alerts every channel when a killed agent stays away, naming it and its location, and resolves the alert when it returns', async () => {
      const location = `silent-${process.pid}`;
      const user = await orgUser(cp, 'silent-agent');
      await webhook(cp, user, `${receiver.url}/agent-hook`);
      const killed = await agentProcess('killed', location);
      const checked = await service(cp, user, { name: 'checked from the pool', endpoint: listener.endpoint, locations: [location] });
      await poll(async () => (await serviceOf(cp, user, checked.id)).last_result_at, { what: 'a first result', timeoutMs: 30_000 });
      // A second agent keeps the location alive: this is one agent's silence, not the location's.
      scripted.push(await connectReadyAgent(cp.running, location));

      await killed.process.kill('SIGKILL');
      const alert = await poll(async () => (await alertsOf(cp, user)).find((a) => a.kind === 'agent_offline'), { what: 'the agent_offline alert', timeoutMs: 15_000 });
      expect(alert).to.include({ status: 'firing', severity: 'critical', agent_id: killed.id, location, service_id: null, alert_rule_id: null });
      expect(alert.title).to.match(new RegExp(`^Agent .+ in ${location} is offline$`));
      expect(alert.message).to.include(killed.id);
      const fired = await receiver.waitFor((r) => r.url === '/agent-hook' && r.json?.event === 'alert_fired', 'the webhook of the alert');
      expect(fired.json.alert).to.include({ id: alert.id, kind: 'agent_offline', agent_id: killed.id, location });
      expect((await alertsOf(cp, user)).filter((a) => a.kind !== 'agent_offline'), 'no location or service alert').to.deep.equal([]);
      expect((await serviceOf(cp, user, checked.id)).stale, 'its services moved to the other agent').to.equal(false);

      await agentProcess('killed', location);
      await poll(async () => (await cp.api.get(`/alerts/${alert.id}`, user.token)).body.status === 'resolved', { what: 'the alert resolved', timeoutMs: 15_000 });
      const resolved = await receiver.waitFor((r) => r.url === '/agent-hook' && r.json?.event === 'alert_resolved', 'the webhook of the resolution');
      expect(resolved.json.alert).to.include({ id: alert.id, status: 'resolved' });
    });

    it('opens one location_offline alert when every agent of a location stops, and marks the services checked only from there stale at once', async () => {
      const location = `dark-${process.pid}`;
      const elsewhere = `lit-${process.pid}`;
      const user = await orgUser(cp, 'dark-location');
      await webhook(cp, user, `${receiver.url}/dark-hook`);
      await rule(cp, user, { name: 'no data anywhere', condition: { no_data: true } });
      const [one, two] = [await agentProcess('dark-one', location), await agentProcess('dark-two', location)];
      scripted.push(await connectReadyAgent(cp.running, elsewhere));
      const only = [await service(cp, user, { name: 'dark a', endpoint: listener.endpoint, locations: [location] }), await service(cp, user, { name: 'dark b', endpoint: listener.endpoint, locations: [location] })];
      const mixed = await service(cp, user, { name: 'dark and lit', endpoint: listener.endpoint, locations: [location, elsewhere] });
      for (const s of only) await poll(async () => (await serviceOf(cp, user, s.id)).last_result_at, { what: `a result of ${s.name}`, timeoutMs: 30_000 });

      await Promise.all([one.process.kill('SIGKILL'), two.process.kill('SIGKILL')]);
      const alert = await poll(async () => (await alertsOf(cp, user)).find((a) => a.kind === 'location_offline'), { what: 'the location alert', timeoutMs: 15_000 });
      expect(alert).to.include({ status: 'firing', severity: 'critical', location, service_id: null, agent_id: null, title: `Location ${location} is offline` });
      for (const s of only) {
        const json = await serviceOf(cp, user, s.id);
        expect(json.stale, s.name).to.equal(true);
        expect(json.last_result_at, s.name).to.be.a('string');
      }
      expect((await serviceOf(cp, user, mixed.id)).stale, 'checked from a lit location too').to.equal(false);
      await receiver.waitFor((r) => r.url === '/dark-hook' && r.json?.alert?.kind === 'location_offline', 'the webhook of the location alert');
      expect((await alertsOf(cp, user)).map((a) => a.kind), 'one alert, for the location').to.deep.equal(['location_offline']);

      // One agent back: the location is lit again, and the one still away is told of by itself.
      await agentProcess('dark-one', location);
      await poll(async () => (await cp.api.get(`/alerts/${alert.id}`, user.token)).body.status === 'resolved', { what: 'the location alert resolved', timeoutMs: 15_000 });
      const still = await poll(async () => (await alertsOf(cp, user)).find((a) => a.kind === 'agent_offline' && a.status === 'firing'), { what: 'the alert of the agent still away' });
      expect(still.agent_id).to.equal(two.id);
      for (const s of only) await poll(async () => (await serviceOf(cp, user, s.id)).stale === false, { what: `${s.name} fresh again`, timeoutMs: 30_000 });
    });
  });

  describe('with a movable clock', () => {
    const clock = new MovableClock();
    let cp: TestControlPlane;
    let receiver: HttpReceiver;
    /** A scripted agent and the id the control plane knows it by (a registered agent's own, whatever its hello says). */
    type Connected = ScriptedAgent & { id: string };
    const agents: ScriptedAgent[] = [];
    const ready = async (location: string, registered?: { id: string; token: string }): Promise<Connected> => {
      const agent = registered ? await connectScriptedAgent(cp.running.grpcPort, registered.token, location) : await connectReadyAgent(cp.running, location);
      agents.push(agent);
      const id = registered?.id ?? agent.agentId;
      await poll(async () => (await sql('select 1 from agent_sessions where agent_id = $1', [id])).length === 1, { what: 'the agent session' });
      return Object.assign(agent, { id });
    };
    /** Closes the agents and waits until the control plane has seen them go. */
    const leave = async (...left: Connected[]) => {
      for (const a of left) a.close();
      await poll(async () => (await sql('select 1 from agent_sessions where agent_id = any($1::uuid[])', [left.map((a) => a.id)])).length === 0, { what: 'the sessions ended' });
    };
    /**
     * One round of the watchdog at the clock's time. Twice: a round the timer started before
     * the clock moved may be running, and the first call would answer that one.
     */
    const watch = async () => {
      await cp.running.runWatchdog();
      await cp.running.runWatchdog();
    };

    before(async () => {
      receiver = await startHttpReceiver();
      cp = await startTestControlPlane({ start: { clock, retry: fast } });
    });
    after(async () => {
      for (const a of agents) a.close();
      await cp?.stop();
      await receiver?.close();
    });

    it('marks a service stale after three intervals without a result, opens its no_data rule\'s alert once, and a result resolves it', async () => {
      const location = 'stale-one';
      const user = await orgUser(cp, 'no-data');
      await webhook(cp, user, `${receiver.url}/no-data`);
      const agent = await ready(location);
      const watched = await service(cp, user, { name: 'quiet api', check_interval_seconds: 30, locations: [location] });
      const other = await service(cp, user, { name: 'other api', check_interval_seconds: 30, locations: [location] });
      const ruleId = await rule(cp, user, { name: 'quiet api has data', service_id: watched.id, condition: { no_data: true } });
      await agent.sendResults([{ serviceId: watched.id }, { serviceId: other.id }]);
      const fresh = await serviceOf(cp, user, watched.id);
      expect(fresh).to.include({ stale: false });
      expect(fresh.last_result_at).to.be.a('string');

      clock.advance(80_000);
      await watch();
      expect((await serviceOf(cp, user, watched.id)).stale, 'within three intervals (90 s)').to.equal(false);

      clock.advance(15_000);
      await watch();
      expect((await serviceOf(cp, user, watched.id)).stale).to.equal(true);
      expect((await serviceOf(cp, user, other.id)).stale, 'stale too, though no rule asks').to.equal(true);
      const overview = (await cp.api.get('/services/overview', user.token)).body.services as { id: string; stale: boolean; last_result_at: string }[];
      expect(overview.find((s) => s.id === watched.id)).to.include({ stale: true, last_result_at: fresh.last_result_at });
      let alerts = await alertsOf(cp, user);
      expect(alerts.map((a) => [a.kind, a.service_id, a.alert_rule_id, a.severity])).to.deep.equal([['no_data', watched.id, ruleId, 'warning']]);
      expect(alerts[0]!.title).to.equal(`quiet api has no data since ${fresh.last_result_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`);
      const fired = await receiver.waitFor((r) => r.url === '/no-data' && r.json?.event === 'alert_fired', 'the no_data webhook');
      expect(fired.json.alert).to.include({ kind: 'no_data', service_id: watched.id });

      clock.advance(120_000);
      await watch();
      expect((await alertsOf(cp, user)).length, 'one alert for one time without data').to.equal(1);

      await agent.sendResults([{ serviceId: watched.id }]);
      expect((await serviceOf(cp, user, watched.id)).stale).to.equal(false);
      alerts = await alertsOf(cp, user);
      expect(alerts.map((a) => a.status)).to.deep.equal(['resolved']);
      await receiver.waitFor((r) => r.url === '/no-data' && r.json?.event === 'alert_resolved', 'the resolution webhook');
    });

    it('never marks a paused service stale, and a stale service paused is stale no more', async () => {
      const location = 'stale-paused';
      const user = await orgUser(cp, 'paused');
      await ready(location);
      const paused = await service(cp, user, { name: 'paused from the start', check_interval_seconds: 30, locations: [location], paused: true });
      const later = await service(cp, user, { name: 'paused later', check_interval_seconds: 30, locations: [location] });
      clock.advance(100_000);
      await watch();
      expect((await serviceOf(cp, user, paused.id)).stale).to.equal(false);
      expect((await serviceOf(cp, user, later.id)).stale).to.equal(true);
      expect((await cp.api.put(`/services/${later.id}`, { paused: true }, user.token)).status).to.equal(200);
      expect((await serviceOf(cp, user, later.id)).stale, 'a paused service says it is not stale at once').to.equal(false);
      clock.advance(1_000);
      await watch();
      expect((await sql<{ stale: boolean }>('select stale from services where id = $1', [later.id]))[0]!.stale).to.equal(false);
    });

    it('opens one location alert and no no_data alert when a location goes dark, though its services are overdue', async () => {
      const location = 'all-dark';
      const user = await orgUser(cp, 'all-dark');
      await rule(cp, user, { name: 'no data', condition: { no_data: true } });
      const [a, b] = [await ready(location), await ready(location)];
      const services = [await service(cp, user, { name: 'd1', check_interval_seconds: 30, locations: [location] }), await service(cp, user, { name: 'd2', check_interval_seconds: 30, locations: [location] })];
      await a.sendResults(services.map((s) => ({ serviceId: s.id })));
      await leave(a, b);
      clock.advance(200_000);
      await watch();
      expect((await alertsOf(cp, user)).map((x) => [x.kind, x.location])).to.deep.equal([['location_offline', location]]);
      for (const s of services) expect((await serviceOf(cp, user, s.id)).stale).to.equal(true);
      clock.advance(200_000);
      await watch();
      expect((await alertsOf(cp, user)).length, 'the location alert speaks for its services').to.equal(1);
    });

    it('routes an agent alert through the first agent_offline rule, to its channels only, and to every channel when no rule asks', async () => {
      const routed = await orgUser(cp, 'routed');
      const [first, second] = [await webhook(cp, routed, `${receiver.url}/routed-a`, 'a'), await webhook(cp, routed, `${receiver.url}/routed-b`, 'b')];
      const ruleId = await rule(cp, routed, { name: 'agents', condition: { agent_offline: true, channel_ids: [first] } });
      await rule(cp, routed, { name: 'later agents rule', condition: { agent_offline: true, channel_ids: [second] } });
      const everyone = await orgUser(cp, 'unrouted');
      const channels = [await webhook(cp, everyone, `${receiver.url}/all-a`, 'a'), await webhook(cp, everyone, `${receiver.url}/all-b`, 'b')];
      const registered = async (user: TestUser, location: string) => {
        const r = await cp.api.post('/agents', { name: `${location}-agent`, location }, user.token);
        expect(r.status, r.text).to.equal(201);
        return { id: r.body.id as string, agent: await ready(location, { id: r.body.id, token: r.body.token }) };
      };
      const [mine, theirs] = [await registered(routed, 'routed-loc'), await registered(everyone, 'unrouted-loc')];
      await leave(mine.agent, theirs.agent);
      clock.advance(61_000);
      await watch();

      const deliveredTo = async (user: TestUser, alert: AlertJson) => ((await cp.api.get(`/alerts/${alert.id}/deliveries`, user.token)).body as { channel_id: string }[]).map((d) => d.channel_id).sort();
      const [routedAlert] = await alertsOf(cp, routed);
      expect(routedAlert).to.include({ kind: 'agent_offline', agent_id: mine.id, alert_rule_id: ruleId, severity: 'critical', service_name: 'routed-loc-agent', location: 'routed-loc' });
      expect(await deliveredTo(routed, routedAlert!)).to.deep.equal([first]);
      const [unroutedAlert] = await alertsOf(cp, everyone);
      expect(unroutedAlert).to.include({ kind: 'agent_offline', agent_id: theirs.id, alert_rule_id: null });
      expect(await deliveredTo(everyone, unroutedAlert!)).to.deep.equal([...channels].sort());

      // Removing the registered agent resolves its alert.
      expect((await cp.api.del(`/agents/${mine.id}`, routed.token)).status).to.equal(204);
      await poll(async () => (await cp.api.get(`/alerts/${routedAlert!.id}`, routed.token)).body.status === 'resolved', { what: 'the removed agent\'s alert resolved' });
    });

    it('tells an organization that came after a platform agent went silent nothing of it, and forgets a platform agent unseen for a week', async () => {
      const location = 'gone-before';
      const early = await orgUser(cp, 'early');
      await service(cp, early, { name: 'early', locations: [location] });
      const keeper = await ready(location);
      const gone = await ready(location);
      await leave(gone);
      clock.advance(61_000);
      await watch();
      const [alert] = await alertsOf(cp, early);
      expect(alert).to.include({ kind: 'agent_offline', agent_id: gone.agentId, status: 'firing' });

      const late = await orgUser(cp, 'late');
      await service(cp, late, { name: 'late', locations: [location] });
      clock.advance(1_000);
      await watch();
      expect(await alertsOf(cp, late), 'the agent left before this organization came').to.deep.equal([]);

      await leave(keeper);
      clock.advance(8 * 86_400_000);
      await watch();
      expect((await cp.api.get(`/alerts/${alert!.id}`, early.token)).body.status).to.equal('resolved');
      expect(await sql('select 1 from agent_sightings where agent_id = $1', [gone.agentId])).to.deep.equal([]);
    });
  });
});
