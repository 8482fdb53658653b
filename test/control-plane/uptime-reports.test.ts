import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { requireServerDatabase } from '../support/test-database.js';
import { startSmtpSink, type Mail, type SmtpSink } from '../fixtures/smtp-sink.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const HEADER = 'service_id,name,uptime_percentage,total_checks,failed_checks,downtime_minutes,mean_response_time_ms,p95_response_time_ms,incidents';

/** The decoded content of the MIME part whose headers match `name`. */
function attachment(mail: Mail, name: RegExp): string {
  const boundaries = [...mail.raw.matchAll(/boundary="?([^";\r\n]+)"?/g)].map((m) => m[1]!);
  const parts = boundaries.flatMap((b) => mail.raw.split(`--${b}`));
  const part = parts.find((p) => name.test(p.split(/\r?\n\r?\n/)[0] ?? ''));
  if (!part) throw new Error(`no part ${name} in the mail`);
  const [head, ...rest] = part.split(/\r?\n\r?\n/);
  const content = rest.join('\r\n\r\n').trim();
  if (/content-transfer-encoding:\s*base64/i.test(head!)) return Buffer.from(content.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head!)) {
    return content.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return content;
}

describe('uptime reports', () => {
  const clock = new MovableClock();
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let owner: TestUser;
  let a: string;
  let b: string;
  let c: string;
  /** Three whole hours ago: the results are placed after it, minute by minute. */
  const H = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
  const at = (minute: number, second = 0) => H + minute * MINUTE + second * 1000;
  let range: string;

  const newService = async (name: string, tags: string[]) =>
    (await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600, tags }, owner.token)).body.id as string;
  const report = (query: string, token = owner.token) => cp.api.get(`/reports/uptime?${query}`, token);
  const csv = async (query: string) => {
    const res = await fetch(`${cp.baseUrl}/api/v1/reports/uptime?${query}&format=csv`, { headers: { authorization: `Bearer ${owner.token}` }, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text: await res.text() };
  };

  before(async () => {
    cp = await startTestControlPlane({ start: { clock } });
    agent = await connectReadyAgent(cp.running);
    owner = await cp.api.newUser('reports');
    a = await newService('api, "main"', ['prod', 'api']);
    b = await newService('web', ['prod']);
    c = await newService('=batch', ['staging']);
    const rule = await cp.api.post('/alert-rules', { service_id: a, name: 'down', severity: 'critical', condition: { statuses: ['RED'] } }, owner.token);
    expect(rule.status, rule.text).to.equal(201);

    // a: 8 checks, 4 failed; minutes 1 and 5 all failed; two alerts (minute 1, minute 5), resolved between by a GREEN result.
    const results: [number, boolean, number][] = [
      [at(0), true, 100], [at(0, 30), true, 200],
      [at(1), false, 50], [at(1, 30), false, 70],
      [at(2), false, 30], [at(2, 30), true, 400],
      [at(3), true, 1500],
      [at(5), false, 10],
    ];
    await agent.sendResults([{ serviceId: a, ok: true, responseTimeMs: 999, checkedAtMs: H - 2 * DAY }]);
    for (const [checkedAtMs, ok, responseTimeMs] of results) await agent.sendResults([{ serviceId: a, ok, responseTimeMs, checkedAtMs }]);
    await agent.sendResults([
      { serviceId: b, ok: true, responseTimeMs: 20, checkedAtMs: at(70) },
      { serviceId: b, ok: true, responseTimeMs: 40, checkedAtMs: at(70, 30) },
    ]);
    const alerts = (await cp.api.get(`/alerts?service_id=${a}&status=all`, owner.token)).body as { id: string; fired_at: string }[];
    expect(alerts, 'two alerts fired').to.have.length(2);

    // Written incidents: one naming a, one opened from a's first alert (not counted twice),
    // one naming b until it resolved, and one naming a that started before the range.
    const page = await cp.api.post('/status-pages', { slug: `r-${randomUUID().slice(0, 8)}`, title: 'Reports', service_ids: [a, b] }, owner.token);
    expect(page.status, page.text).to.equal(201);
    const write = async (body: Record<string, unknown>) => {
      const created = await cp.api.post(`/status-pages/${page.body.id}/incidents`, { message: 'Looking into it', ...body }, owner.token);
      expect(created.status, created.text).to.equal(201);
      return created.body.id as string;
    };
    await write({ title: 'Slow API', affected: [{ service_id: a }], starts_at: new Date(at(10)).toISOString() });
    const oldest = alerts.reduce((x, y) => (x.fired_at < y.fired_at ? x : y));
    await write({ title: 'API down', affected: [{ service_id: a }], alert_id: oldest.id, starts_at: new Date(at(1)).toISOString() });
    const web = await write({ title: 'Web errors', affected: [{ service_id: b }], starts_at: new Date(at(70)).toISOString() });
    const resolved = await cp.api.post(`/status-pages/${page.body.id}/incidents/${web}/updates`, { status: 'resolved', message: 'Fixed', affected: [] }, owner.token);
    expect(resolved.status, resolved.text).to.equal(201);
    await write({ title: 'Long ago', affected: [{ service_id: a }], starts_at: new Date(H - DAY).toISOString() });

    range = `from=${new Date(H).toISOString()}&to=${new Date(Date.now() + MINUTE).toISOString()}`;
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  const expectedA = { uptime_percentage: 50, total_checks: 8, failed_checks: 4, downtime_minutes: 2, mean_response_time_ms: 295, p95_response_time_ms: 1500, incidents: 3 };
  const expectedB = { uptime_percentage: 100, total_checks: 2, failed_checks: 0, downtime_minutes: 0, mean_response_time_ms: 30, p95_response_time_ms: 40, incidents: 1 };
  const expectedC = { uptime_percentage: null, total_checks: 0, failed_checks: 0, downtime_minutes: 0, mean_response_time_ms: null, p95_response_time_ms: null, incidents: 0 };

  it('reports every service of the organization with the figures of its results', async () => {
    const r = await report(range);
    expect(r.status, r.text).to.equal(200);
    expect(r.body.from).to.equal(new Date(H).toISOString());
    expect(r.body.services).to.deep.equal([
      { service_id: a, name: 'api, "main"', ...expectedA },
      { service_id: b, name: 'web', ...expectedB },
      { service_id: c, name: '=batch', ...expectedC },
    ]);
  });

  it('answers the same figures as CSV with a header row', async () => {
    const r = await csv(range);
    expect(r.status, r.text).to.equal(200);
    expect(r.type).to.match(/^text\/csv/);
    expect(r.disposition).to.match(/^attachment; filename="uptime-report-.+\.csv"$/);
    expect(r.text.split('\r\n')).to.deep.equal([
      HEADER,
      `${a},"api, ""main""",50,8,4,2,295,1500,3`,
      `${b},web,100,2,0,0,30,40,1`,
      `${c},'=batch,,0,0,0,,,0`,
      '',
    ]);
  });

  it('narrows to service ids or tags', async () => {
    const ids = (body: { services: { service_id: string }[] }) => body.services.map((s) => s.service_id);
    expect(ids((await report(`${range}&tags=api`)).body)).to.deep.equal([a]);
    expect(ids((await report(`${range}&tags=prod,staging`)).body)).to.deep.equal([a, b, c]);
    expect(ids((await report(`${range}&service_ids=${b},${a}`)).body), 'in creation order').to.deep.equal([a, b]);
    expect((await report(`${range}&tags=nothing`)).body.services).to.deep.equal([]);
  });

  it('refuses foreign services, both filters, bad or reversed ranges and ranges over 400 days', async () => {
    const stranger = await cp.api.newUser('reports-stranger');
    expect((await report(`${range}&service_ids=${a}`, stranger.token)).status, 'another organization').to.equal(404);
    expect((await report(`${range}&service_ids=${randomUUID()}`)).status).to.equal(404);
    for (const query of [
      `${range}&service_ids=${a}&tags=prod`,
      'service_ids=not-a-uuid',
      'from=yesterday',
      'from=2024-02-01&to=2024-01-01',
      'from=2024-01-01T10:00:00Z&to=2024-01-01T10:00:00Z',
      'from=2024-01-01&to=2025-02-04',
      'format=pdf',
      'colour=red',
    ]) {
      expect((await report(query)).status, query).to.equal(400);
    }
    expect((await report('from=2024-01-01&to=2025-02-03')).status, '400 days exactly').to.equal(200);
  });

  it('reads a date as midnight UTC, and as the end of that day for to; defaults to the last 30 days', async () => {
    const day = await report('from=2024-03-05&to=2024-03-05');
    expect(day.body).to.include({ from: '2024-03-05T00:00:00.000Z', to: '2024-03-06T00:00:00.000Z' });
    const last = (await report('')).body;
    expect(Date.parse(last.to) - Date.parse(last.from)).to.equal(30 * DAY);
    expect(Math.abs(Date.parse(last.to) - clock.now().getTime())).to.be.below(MINUTE);
  });

  it('lets viewers read reports', async () => {
    const viewer = await cp.api.keyWithRole(owner, 'viewer');
    expect((await report(range, viewer)).status).to.equal(200);
  });

  it('estimates downtime from the hour rollups once the minute rollups are gone', async () => {
    clock.advance(40 * DAY);
    try {
      const r = await report(`${range}&service_ids=${a}`);
      // 4 of the hour's 8 checks failed: half of its 60 minutes.
      expect(r.body.services).to.deep.equal([{ service_id: a, name: 'api, "main"', ...expectedA, downtime_minutes: 30 }]);
    } finally {
      clock.advance(-40 * DAY);
    }
  });

  describe('settings', () => {
    it('starts with the monthly e-mail off, and refuses to turn it on without SMTP', async () => {
      expect((await cp.api.get('/reports/settings', owner.token)).body).to.deep.equal({ monthly_email: { enabled: false, recipients: [] } });
      const on = await cp.api.put('/reports/settings', { monthly_email: { enabled: true, recipients: ['ops@example.com'] } }, owner.token);
      expect(on.status).to.equal(400);
      expect(on.body.error).to.match(/SMTP_HOST/);
      const kept = await cp.api.put('/reports/settings', { monthly_email: { recipients: ['Ops@Example.com', 'ops@example.com'] } }, owner.token);
      expect(kept.status, kept.text).to.equal(200);
      expect(kept.body).to.deep.equal({ monthly_email: { enabled: false, recipients: ['ops@example.com'] } });
    });
  });
});

describe('monthly uptime report e-mail', () => {
  const clock = new MovableClock();
  let sink: SmtpSink;
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let owner: TestUser;
  let serviceId: string;
  const recipients = ['cto@example.com', 'ops@example.com'];
  const mailsFor = (month: string) => sink.mails.filter((m) => m.text.includes(`Uptime report for`) && m.text.includes(month));

  before(async () => {
    sink = await startSmtpSink();
    // Started on the real time (partition upkeep runs at start), then moved into 2031.
    cp = await startTestControlPlane({ env: sink.env, start: { clock, jobIntervalMs: 100 } });
    agent = await connectReadyAgent(cp.running);
    owner = await cp.api.newUser('monthly');
    serviceId = (await cp.api.post('/services', { name: 'billing', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token)).body.id;
    clock.set('2031-02-10T12:00:00Z');
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await sink?.close();
  });

  it('lets admins choose the recipients, and viewers read them', async () => {
    const member = await cp.api.keyWithRole(owner, 'member');
    const viewer = await cp.api.keyWithRole(owner, 'viewer');
    expect((await cp.api.put('/reports/settings', { monthly_email: { enabled: true, recipients } }, member)).status).to.equal(403);
    expect((await cp.api.put('/reports/settings', { monthly_email: { enabled: true, recipients: [] } }, owner.token)).status).to.equal(400);
    expect((await cp.api.put('/reports/settings', { monthly_email: { enabled: true, recipients: ['not an address'] } }, owner.token)).status).to.equal(400);
    const saved = await cp.api.put('/reports/settings', { monthly_email: { enabled: true, recipients: recipients.map((r) => r.toUpperCase()) } }, owner.token);
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.deep.equal({ monthly_email: { enabled: true, recipients } });
    expect((await cp.api.get('/reports/settings', viewer)).body).to.deep.equal({ monthly_email: { enabled: true, recipients } });
  });

  it("sends the previous month's report at the start of the month, once", async () => {
    const t = (iso: string) => Date.parse(`2031-02-10T${iso}Z`);
    await agent.sendResults([
      { serviceId, ok: true, responseTimeMs: 100, checkedAtMs: t('10:00:00') },
      { serviceId, ok: true, responseTimeMs: 100, checkedAtMs: t('10:00:30') },
      { serviceId, ok: false, responseTimeMs: 20, checkedAtMs: t('10:01:00') },
      { serviceId, ok: true, responseTimeMs: 900, checkedAtMs: t('10:02:00') },
    ]);
    expect(await cp.running.runMonthlyReports(), 'turned on in February: no report of January').to.equal(0);
    expect(sink.mails).to.have.length(0);

    clock.set('2031-03-01T00:00:30Z');
    const [mail] = await poll(() => mailsFor('February 2031').length > 0 && mailsFor('February 2031'), { what: 'the February report' });
    expect(mail!.to.sort()).to.deep.equal(recipients);
    expect(mail!.raw).to.match(/^Subject: \[Outpost\] Uptime report for .+, February 2031$/m);
    expect(mail!.text).to.include('- billing: 75% uptime, 4 checks, 1 failed, 1 min down, mean 280 ms, p95 900 ms, 0 incidents');
    const rows = attachment(mail!, /filename="?uptime-report-2031-02-01-2031-03-01\.csv/).split('\r\n');
    expect(rows).to.deep.equal([HEADER, `${serviceId},billing,75,4,1,1,280,900,0`, '']);

    // The timer's round that sent it may still be going on; a call joins it and answers its count.
    await cp.running.runMonthlyReports();
    expect(await cp.running.runMonthlyReports()).to.equal(0);
    expect(mailsFor('February 2031'), 'once').to.have.length(1);
  });

  it('is sent once by several replicas', async function () {
    await requireServerDatabase(this, 'a second replica on the same database');
    const replica = await startTestControlPlane({ env: sink.env, start: { clock, jobIntervalMs: 100 } });
    try {
      clock.set('2031-04-01T00:00:10Z');
      const sent = await Promise.all([cp.running.runMonthlyReports(), replica.running.runMonthlyReports()]);
      await poll(() => mailsFor('March 2031').length > 0, { what: 'the March report' });
      expect(sent.reduce((x, y) => x + y, 0)).to.be.at.most(1);
      expect(await replica.running.runMonthlyReports()).to.equal(0);
      expect(await cp.running.runMonthlyReports()).to.equal(0);
      expect(mailsFor('March 2031')).to.have.length(1);
      expect(mailsFor('March 2031')[0]!.text).to.include('- billing: no checks');
    } finally {
      await replica.stop();
    }
  });
});
