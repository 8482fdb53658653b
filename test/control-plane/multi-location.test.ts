// A service checked from several locations: its status follows the quorum of its locations'
// latest results (API.md: RED or YELLOW when at least min_failing_locations agree).
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';

describe('multi-location status', () => {
  let cp: TestControlPlane;
  const agents: Record<string, ScriptedAgent> = {};
  const locations = ['paris', 'tokyo', 'ohio'].map((l) => `${l}-${process.pid}`);
  let user: TestUser;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('multi');
    for (const location of locations) {
      agents[location] = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
      await poll(() => agents[location]!.received.some((m) => m.payload?.$case === 'snapshot'), { what: `the snapshot of ${location}` });
    }
  });
  after(async () => {
    for (const a of Object.values(agents)) a.close();
    await cp?.stop();
  });

  const service = async (options: Record<string, unknown> = {}) =>
    (await cp.api.post('/services', { name: 'global', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations, options }, user.token)).body;
  const report = (location: string, serviceId: string, ok: boolean, responseTimeMs = 10) => agents[location]!.sendResults([{ serviceId, ok, responseTimeMs }]);
  const statusOf = async (id: string) => (await cp.api.get(`/services/${id}`, user.token)).body.status;

  it('is assigned to an agent in each of its locations', async () => {
    const s = await service();
    for (const location of locations) await poll(() => agents[location]!.held.has(s.id), { what: `the assignment in ${location}` });
  });

  it('turns RED when one location fails with the default min_failing_locations of 1', async () => {
    const s = await service();
    await report(locations[0]!, s.id, true);
    await report(locations[1]!, s.id, false);
    await report(locations[2]!, s.id, true);
    expect(await statusOf(s.id)).to.equal('RED');
    await report(locations[1]!, s.id, true);
    expect(await statusOf(s.id)).to.equal('GREEN');
  });

  it('needs two failing locations with min_failing_locations 2, and says which location each result came from', async () => {
    const s = await service({ min_failing_locations: 2 });
    await report(locations[0]!, s.id, false);
    await report(locations[1]!, s.id, true);
    await report(locations[2]!, s.id, true);
    expect(await statusOf(s.id), 'one failing location of three').to.equal('GREEN');
    await report(locations[2]!, s.id, true, 1500);
    expect(await statusOf(s.id), 'one RED and one YELLOW location').to.equal('YELLOW');
    await report(locations[1]!, s.id, false);
    expect(await statusOf(s.id), 'two RED locations').to.equal('RED');
    const log = (await cp.api.get(`/services/${s.id}/checks`, user.token)).body;
    expect(new Set(log.map((c: any) => c.location))).to.deep.equal(new Set(locations));
    expect((await cp.api.get(`/services/${s.id}/checks?location=${locations[1]}`, user.token)).body.every((c: any) => c.location === locations[1])).to.equal(true);
  });

  it('opens an alert only when a rule requires as many failing locations as there are', async () => {
    const s = await service();
    await cp.api.post('/alert-rules', { name: 'two places', severity: 'critical', service_id: s.id, condition: { min_failing_locations: 2 } }, user.token);
    await report(locations[0]!, s.id, false);
    expect((await cp.api.get(`/alerts?service_id=${s.id}`, user.token)).body).to.deep.equal([]);
    await report(locations[1]!, s.id, false);
    expect((await cp.api.get(`/alerts?service_id=${s.id}`, user.token)).body).to.have.length(1);
  });
});
