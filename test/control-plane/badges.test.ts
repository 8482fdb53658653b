import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';

const DAY = 86_400_000;
const MINUTE = 60_000;

interface SvgBadge {
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  /** The accessible name badge-maker writes: "label: message". */
  title: string;
  /** Every text drawn. */
  texts: string[];
  body: string;
}

/** Every string value under `node`, depth first (text nodes of the parsed SVG). */
function textsOf(node: unknown): string[] {
  if (typeof node === 'string' || typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return node.flatMap(textsOf);
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([key, value]) => (key.startsWith('@_') ? [] : textsOf(value)));
  return [];
}

describe('badges', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let owner: TestUser;
  const now = Date.now();

  before(async () => {
    cp = await startTestControlPlane();
    agent = await connectReadyAgent(cp.running);
    owner = await cp.api.newUser('badges');
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  async function fetchBadge(path: string): Promise<SvgBadge> {
    const res = await fetch(`${cp.baseUrl}/api/v1/badges/${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = await res.text();
    const badge = { status: res.status, contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), title: '', texts: [] as string[], body };
    if (res.status !== 200) return badge;
    expect(XMLValidator.validate(body), 'well-formed XML').to.equal(true);
    const svg = new XMLParser({ ignoreAttributes: false }).parse(body).svg;
    expect(svg, 'an <svg> root').to.be.an('object');
    expect(svg['@_xmlns']).to.equal('http://www.w3.org/2000/svg');
    return { ...badge, title: String(svg.title), texts: textsOf(svg.g) };
  }

  const newService = async (u: TestUser, name: string) =>
    (await cp.api.post('/services', { name, endpoint: 'https://127.0.0.1:9/', check_type: 'HTTPS', check_interval_seconds: 3600 }, u.token)).body.id as string;
  const publicPage = async (u: TestUser, serviceIds: string[], pub = true) => {
    const created = await cp.api.post('/status-pages', { slug: `b-${randomUUID().slice(0, 8)}`, title: 'Badges', service_ids: serviceIds, public: pub }, u.token);
    expect(created.status, created.text).to.equal(201);
    return created.body.id as string;
  };

  describe('on a public status page', () => {
    let serviceId: string;

    before(async () => {
      serviceId = await newService(owner, 'api');
      await publicPage(owner, [serviceId]);
      const certificateEnds = new Date(now + 20 * DAY + 12 * 3_600_000).toISOString();
      await agent.sendResults([
        { serviceId, ok: true, responseTimeMs: 300, checkedAtMs: now - 10 * DAY },
        { serviceId, ok: false, responseTimeMs: 40, checkedAtMs: now - 3 * DAY },
        { serviceId, ok: true, responseTimeMs: 100, checkedAtMs: now - 3 * MINUTE, details: { tls_valid_to: certificateEnds } },
        { serviceId, ok: false, responseTimeMs: 50, checkedAtMs: now - 2 * MINUTE },
        { serviceId, ok: true, responseTimeMs: 210, checkedAtMs: now - MINUTE, details: { tls_valid_to: certificateEnds } },
      ]);
    });

    it('draws the status as SVG with public cache headers', async () => {
      const badge = await fetchBadge(`${serviceId}/status.svg`);
      expect(badge.status, badge.body).to.equal(200);
      expect(badge.contentType).to.match(/^image\/svg\+xml/);
      expect(badge.cacheControl).to.equal('public, max-age=60');
      expect(badge.title).to.equal('status: up');
      expect(badge.texts).to.include.members(['status', 'up']);
    });

    it('draws uptime over the period asked for, 30 days by default', async () => {
      expect((await fetchBadge(`${serviceId}/uptime.svg`)).title, '3 of 5 up').to.equal('uptime: 60%');
      expect((await fetchBadge(`${serviceId}/uptime.svg?period=7d`)).title, '2 of 4 up').to.equal('uptime: 50%');
      expect((await fetchBadge(`${serviceId}/uptime.svg?period=24h`)).title, '2 of 3 up, cut to two decimals').to.equal('uptime: 66.66%');
      expect((await fetchBadge(`${serviceId}/uptime.svg?period=1y`)).status).to.equal(400);
    });

    it('draws the mean response time of the last 24 hours', async () => {
      const badge = await fetchBadge(`${serviceId}/response-time.svg`);
      expect(badge.title, '(100 + 50 + 210) / 3').to.equal('response time: 120 ms');
    });

    it('draws the days left on the certificate the checks saw', async () => {
      const badge = await fetchBadge(`${serviceId}/certificate.svg`);
      expect(badge.title).to.equal('certificate: 20 days');
      expect(badge.texts).to.include('20 days');
    });

    it('puts the label asked for on the left, and refuses one over 40 characters', async () => {
      const badge = await fetchBadge(`${serviceId}/status.svg?label=${encodeURIComponent('API <prod> & co')}`);
      expect(badge.title).to.equal('API <prod> & co: up');
      expect(badge.body, 'escaped in the SVG').to.include('API &lt;prod&gt; &amp; co');
      expect((await fetchBadge(`${serviceId}/uptime.svg?label=SLA&period=24h`)).title).to.equal('SLA: 66.66%');
      expect((await fetchBadge(`${serviceId}/status.svg?label=${'x'.repeat(41)}`)).status).to.equal(400);
    });

    it('says pending, no data and unknown for a service without results', async () => {
      const fresh = await newService(owner, 'fresh');
      await publicPage(owner, [fresh]);
      expect((await fetchBadge(`${fresh}/status.svg`)).title).to.equal('status: pending');
      expect((await fetchBadge(`${fresh}/uptime.svg`)).title).to.equal('uptime: no data');
      expect((await fetchBadge(`${fresh}/response-time.svg`)).title).to.equal('response time: no data');
      expect((await fetchBadge(`${fresh}/certificate.svg`)).title).to.equal('certificate: unknown');
    });

    it('says down in red for a failing service', async () => {
      const failing = await newService(owner, 'failing');
      await publicPage(owner, [failing]);
      await agent.sendResults([{ serviceId: failing, ok: false, responseTimeMs: 20, checkedAtMs: Date.now() }]);
      const badge = await fetchBadge(`${failing}/status.svg`);
      expect(badge.title).to.equal('status: down');
      expect(badge.body).to.include('fill="#dd4343"');
    });
  });

  describe('for a service no public page lists', () => {
    let hidden: string;
    let unknownAnswer: { status: number; body: string; contentType: string | null };

    before(async () => {
      hidden = await newService(owner, 'hidden');
      await publicPage(owner, [hidden], false);
      const unknown = await fetchBadge(`${randomUUID()}/status.svg`);
      unknownAnswer = { status: unknown.status, body: unknown.body, contentType: unknown.contentType };
      expect(unknownAnswer.status).to.equal(404);
    });

    it('answers exactly the 404 of an unknown id, for every badge', async () => {
      for (const kind of ['status', 'uptime', 'response-time', 'certificate']) {
        const badge = await fetchBadge(`${hidden}/${kind}.svg`);
        expect({ status: badge.status, body: badge.body, contentType: badge.contentType }, kind).to.deep.equal(unknownAnswer);
      }
      expect((await fetchBadge(`${hidden}/status.svg?token=guessed`)).body, 'a wrong token').to.equal(unknownAnswer.body);
    });

    it('opens with the badge token, privately cached; a new token replaces the old; deleting it closes', async () => {
      const created = await cp.api.post(`/services/${hidden}/badge-token`, {}, owner.token);
      expect(created.status, created.text).to.equal(201);
      const first = created.body.token as string;
      expect(created.body.badges).to.have.all.keys('status', 'uptime', 'response_time', 'certificate');
      const statusUrl = new URL(created.body.badges.status);
      expect(statusUrl.pathname).to.equal(`/api/v1/badges/${hidden}/status.svg`);
      expect(statusUrl.searchParams.get('token')).to.equal(first);
      expect(new URL(created.body.badges.response_time).pathname).to.equal(`/api/v1/badges/${hidden}/response-time.svg`);

      const opened = await fetchBadge(`${hidden}/status.svg?token=${encodeURIComponent(first)}`);
      expect(opened.status).to.equal(200);
      expect(opened.title).to.equal('status: pending');
      expect(opened.cacheControl).to.equal('private, max-age=60');

      const second = (await cp.api.post(`/services/${hidden}/badge-token`, {}, owner.token)).body.token as string;
      expect(second).to.not.equal(first);
      expect((await fetchBadge(`${hidden}/uptime.svg?token=${encodeURIComponent(first)}`)).body, 'the replaced token').to.equal(unknownAnswer.body);
      expect((await fetchBadge(`${hidden}/uptime.svg?token=${encodeURIComponent(second)}`)).status).to.equal(200);

      expect((await cp.api.del(`/services/${hidden}/badge-token`, owner.token)).status).to.equal(204);
      expect((await fetchBadge(`${hidden}/uptime.svg?token=${encodeURIComponent(second)}`)).body, 'the deleted token').to.equal(unknownAnswer.body);
    });

    it('lets members make tokens, not viewers or other organizations', async () => {
      const member = await cp.api.keyWithRole(owner, 'member');
      const viewer = await cp.api.keyWithRole(owner, 'viewer');
      const stranger = await cp.api.newUser('badges-stranger');
      expect((await cp.api.post(`/services/${hidden}/badge-token`, {}, member)).status).to.equal(201);
      expect((await cp.api.post(`/services/${hidden}/badge-token`, {}, viewer)).status).to.equal(403);
      expect((await cp.api.del(`/services/${hidden}/badge-token`, viewer)).status).to.equal(403);
      expect((await cp.api.post(`/services/${hidden}/badge-token`, {}, stranger.token)).status).to.equal(404);
      expect((await cp.api.post(`/services/${randomUUID()}/badge-token`, {}, owner.token)).status).to.equal(404);
      expect((await cp.api.post(`/services/${hidden}/badge-token`, {})).status).to.equal(401);
    });

    it('answers 400 for an id that is not a UUID', async () => {
      expect((await fetchBadge('not-a-uuid/status.svg')).status).to.equal(400);
    });
  });

  it('stops answering once the page goes private', async () => {
    const serviceId = await newService(owner, 'going-private');
    const pageId = await publicPage(owner, [serviceId]);
    expect((await fetchBadge(`${serviceId}/status.svg`)).status).to.equal(200);
    expect((await cp.api.put(`/status-pages/${pageId}`, { access: 'members' }, owner.token)).status).to.equal(200);
    expect((await fetchBadge(`${serviceId}/status.svg`)).status).to.equal(404);
  });
});
