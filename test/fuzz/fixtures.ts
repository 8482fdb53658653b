// The resources the fuzzed routes act on: an owner on the unlimited plan (so creates are not
// all refused by the free plan's limit), a member to change, an outsider to add, and one
// of each resource whose id goes into a path or a body.
import { randomBytes } from 'node:crypto';
import type { ApiClient, TestUser } from '../support/api-client.js';
import { sql } from '../support/sql.js';

export interface Fixtures {
  owner: TestUser;
  member: TestUser;
  outsider: TestUser;
  service: string;
  rule: string;
  channel: string;
  window: string;
  policy: string;
  agent: string;
  heartbeat: string;
  heartbeatKey: string;
  certificate: string;
  statusPage: string;
  statusPageSlug: string;
  team: string;
}

export async function createFixtures(api: ApiClient): Promise<Fixtures> {
  const [owner, member, outsider] = [await api.newUser('fuzz-owner'), await api.newUser('fuzz-member'), await api.newUser('fuzz-outsider')];
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [owner.orgId]);
  const create = async (path: string, body: unknown): Promise<Record<string, string>> => {
    const r = await api.post(path, body, owner.token);
    if (r.status !== 201) throw new Error(`creating the fixture ${path} failed: ${r.status} ${r.text}`);
    return r.body;
  };
  await create('/members', { email: member.email, role: 'member' });
  const service = (await create('/services', { name: 'fuzz target', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400 })).id!;
  // Port 9 (discard) on loopback: a test message or a delivery goes nowhere.
  const channel = (await create('/notification-channels', { name: 'fuzz hook', channel_type: 'webhook', config: { url: 'http://127.0.0.1:9/' } })).id!;
  const team = (await create('/teams', { name: 'fuzz team', member_ids: [member.userId] })).id!;
  const policy = (await create('/escalation-policies', { name: 'fuzz policy', steps: [{ delay_minutes: 0, channel_ids: [channel] }] })).id!;
  const heartbeat = await create('/heartbeats', { name: 'fuzz heartbeat', interval_seconds: 86_400 });
  const statusPage = await create('/status-pages', { slug: `fuzz-${randomBytes(4).toString('hex')}`, title: 'Fuzz', service_ids: [service] });
  const day = 86_400_000;
  return {
    owner,
    member,
    outsider,
    service,
    channel,
    team,
    policy,
    heartbeat: heartbeat.id!,
    heartbeatKey: heartbeat.key!,
    rule: (await create('/alert-rules', { name: 'fuzz rule', severity: 'warning', service_id: service })).id!,
    window: (await create('/maintenance-windows', { name: 'fuzz window', starts_at: new Date(Date.now() + day).toISOString(), ends_at: new Date(Date.now() + 2 * day).toISOString() })).id!,
    agent: (await create('/agents', { name: 'fuzz agent', location: 'fuzz' })).id!,
    certificate: (await create('/ssl-certificates', { hostname: '127.0.0.1', port: 9 })).id!,
    statusPage: statusPage.id!,
    statusPageSlug: statusPage.slug!,
  };
}
