// Takes the README's screenshots from the real app: the services overview, a service's
// detail and a public status page, with services checked from three locations by scripted
// agents (results of the last hours, so trends and charts have something to show).
//
//   npx tsx scripts/screenshots.ts        → docs/screenshot-*.png
import { fileURLToPath } from 'node:url';
import { buildDashboard, launchChromium } from '../test/support/browser.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { connectScriptedAgent } from '../test/support/grpc-test-agent.js';
import { poll } from '../test/support/poll.js';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const LOCATIONS = ['eu-frankfurt', 'us-virginia', 'ap-singapore'];
const SERVICES = [
  { name: 'Checkout API', endpoint: 'https://checkout.internal/health', check_type: 'HTTPS', environment: 'production', tags: ['payments'], base: 120 },
  { name: 'Orders database', endpoint: 'db-orders.internal:5432', check_type: 'POSTGRES', environment: 'production', tags: ['data'], base: 8 },
  { name: 'Session cache', endpoint: 'cache.internal:6379', check_type: 'REDIS', environment: 'production', tags: ['data'], base: 2 },
  { name: 'Customer portal', endpoint: 'https://portal.example.com/', check_type: 'HTTPS', environment: 'production', tags: ['web'], base: 240 },
  { name: 'Mail relay', endpoint: 'smtp.internal:25', check_type: 'SMTP', environment: 'production', tags: ['mail'], base: 35 },
  { name: 'Search cluster', endpoint: 'search.internal:9200', check_type: 'TCP', environment: 'production', tags: ['search'], base: 4 },
  { name: 'Billing gRPC', endpoint: 'billing.internal:50051', check_type: 'GRPC', environment: 'staging', tags: ['payments'], base: 15 },
  { name: 'Internal DNS', endpoint: 'corp.internal', check_type: 'DNS', environment: 'production', tags: ['network'], base: 3 },
  { name: 'Build server SSH', endpoint: 'ci.internal:22', check_type: 'SSH', environment: 'staging', tags: ['ci'], base: 40 },
  { name: 'Legacy reports', endpoint: 'https://reports.internal/', check_type: 'HTTPS', environment: 'staging', tags: ['web'], base: 1400 },
];

buildDashboard();
const cp = await startTestControlPlane({ ownEmbeddedDatabase: true, env: { API_RATE_LIMIT: 'off' } });
const api = cp.api;
await api.post('/auth/register', { email: 'ada@example.com', password: 'correct-horse', full_name: 'Ada Lovelace' });
const login = (await api.post('/auth/login', { email: 'ada@example.com', password: 'correct-horse' })).body as { token: string; user_id: string; org_id: string };
await api.put('/organization', { name: 'Acme Operations', plan: 'unlimited' }, login.token);

const ids: string[] = [];
for (const s of SERVICES) {
  const { base: _base, ...body } = s;
  ids.push((await api.post('/services', { ...body, check_interval_seconds: 300, locations: LOCATIONS }, login.token)).body.id);
}
const agents = await Promise.all(LOCATIONS.map((location) => connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location)));
for (const agent of agents) await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'a snapshot' });

// Three hours of results every 5 minutes; the portal fails from Singapore at the end.
const now = Date.now();
for (let step = 36; step >= 0; step--) {
  for (const [a, agent] of agents.entries()) {
    await agent.sendResults(
      SERVICES.map((s, i) => {
        const failing = i === 3 && a === 2 && step < 3;
        const responseTimeMs = Math.round(s.base * (1 + 0.25 * a) * (1 + 0.3 * Math.sin((step + i) / 4)));
        return {
          serviceId: ids[i]!,
          ok: !failing,
          degraded: !failing && responseTimeMs > 1000,
          responseTimeMs: failing ? 10_000 : responseTimeMs,
          message: failing ? 'timeout after 10 s' : 'ok',
          checkedAtMs: now - step * 300_000,
          details: s.check_type === 'HTTPS' && !failing ? { dns_ms: 2 + a, connect_ms: Math.round(responseTimeMs * 0.2), tls_ms: Math.round(responseTimeMs * 0.3), ttfb_ms: Math.round(responseTimeMs * 0.4), status_code: 200 } : {},
        };
      }),
    );
  }
}
await api.post('/status-pages', { slug: 'acme', title: 'Acme status', service_ids: ids.slice(0, 6), public: true }, login.token);
await api.post('/alert-rules', { name: 'Production down', severity: 'critical' }, login.token);

const browser = await launchChromium();
const session = JSON.stringify({ token: login.token, userId: login.user_id, organizationId: login.org_id, email: 'ada@example.com' });
const context = await browser.newContext({ baseURL: cp.baseUrl, viewport: { width: 1360, height: 820 }, deviceScaleFactor: 1 });
await context.addInitScript(`localStorage.setItem('outpost.session', ${JSON.stringify(session)})`);
const page = await context.newPage();

await page.goto('/services?sort=name');
await page.getByRole('link', { name: 'Checkout API' }).waitFor();
await page.getByText('Live', { exact: true }).waitFor();
await page.screenshot({ path: `${docs}screenshot-overview.png` });

await page.getByRole('link', { name: 'Customer portal' }).click();
await page.getByRole('heading', { name: 'Customer portal', level: 1 }).waitFor();
await page.waitForTimeout(1500);
await page.screenshot({ path: `${docs}screenshot-service.png`, fullPage: true });

const phone = await browser.newContext({ baseURL: cp.baseUrl, viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
const visitor = await phone.newPage();
await visitor.goto('/status/acme');
await visitor.getByRole('heading', { name: 'Acme status' }).waitFor();
await visitor.screenshot({ path: `${docs}screenshot-status-page.png`, fullPage: true });

await browser.close();
for (const agent of agents) agent.close();
await cp.stop();
console.log(`screenshots written to ${docs}`);
