// Two agent processes in one location share its 50 services (each checked by exactly one);
// when one is killed, the survivor takes over all of them within seconds.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { tcpListener, type Listener } from '../fixtures/peers/net-fixtures.js';

describe('e2e: several agents in one location', function () {
  this.timeout(120_000);
  const location = `pool-${process.pid}`;
  let cp: TestControlPlane;
  let dir: string;
  let listener: Listener;
  const agents: AgentProcess[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-pool-'));
    cp = await startTestControlPlane();
    listener = await tcpListener();
  });
  after(async () => {
    for (const a of agents) await a.kill('SIGKILL');
    await cp?.stop();
    await listener?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads 50 services over two agents, one agent each, and moves them all to the survivor', async () => {
    const user = await cp.api.newUser('pool');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const registered: string[] = [];
    for (const name of ['one', 'two']) {
      const { id, token } = (await cp.api.post('/agents', { name, location }, user.token)).body;
      registered.push(id);
      agents.push(startAgentProcess({ server: `127.0.0.1:${cp.running.grpcPort}`, token, location, dataDir: path.join(dir, name) }));
    }
    const online = async () => ((await cp.api.get('/agents', user.token)).body as { status: string }[]).filter((a) => a.status === 'online').length;
    await poll(async () => (await online()) === 2, { what: 'both agents online', timeoutMs: 30_000 });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push((await cp.api.post('/services', { name: `pooled-${i}`, endpoint: listener.endpoint, check_type: 'TCP', check_interval_seconds: 3600, locations: [location] }, user.token)).body.id);
    }
    const agentsOf = async (id: string) => new Set(((await cp.api.get(`/services/${id}/checks`, user.token)).body as { agent_id: string }[]).map((c) => c.agent_id));
    await poll(async () => (await Promise.all(ids.map(agentsOf))).every((set) => set.size > 0), { what: 'a result for each of the 50 services', timeoutMs: 30_000 });
    const owners = await Promise.all(ids.map(agentsOf));
    expect(owners.every((set) => set.size === 1), 'each service checked by exactly one agent').to.equal(true);
    const perAgent = new Map<string, number>();
    for (const set of owners) for (const agentId of set) perAgent.set(agentId, (perAgent.get(agentId) ?? 0) + 1);
    expect([...perAgent.keys()].sort(), 'both agents have a share').to.deep.equal([...registered].sort());

    const moved = ids.filter((_, i) => owners[i]!.has(registered[0]!));
    const killedAt = Date.now();
    await agents[0]!.kill('SIGKILL');
    const checkedSince = async (id: string) =>
      ((await cp.api.get(`/services/${id}/checks`, user.token)).body as { agent_id: string; checked_at: string }[]).filter((c) => Date.parse(c.checked_at) >= killedAt);
    // Its stream closes with the process, so its share moves at once and runs at once.
    await poll(async () => (await Promise.all(moved.map(checkedSince))).every((checks) => checks.length > 0), { what: 'the moved services checked by the survivor', timeoutMs: 30_000, intervalMs: 100 });
    console.log(`      failover: ${moved.length} services moved and checked by the survivor ${Date.now() - killedAt} ms after the kill`);
    const after = await Promise.all(moved.map(checkedSince));
    expect([...new Set(after.flatMap((checks) => checks.map((c) => c.agent_id)))]).to.deep.equal([registered[1]]);
    expect((await cp.api.get(`/agents/${registered[0]}`, user.token)).body.status).to.equal('offline');
  });
});
