// Organization secrets (issue 38): CRUD and roles, values sealed at rest and never answered;
// {{secrets.NAME}} in services' options checked on save and replaced by the value only in what
// the agents of those services receive, again when the value changes. Also the secret options
// nested in options (oauth2.client_secret) and a proxy's password.
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createSecretBox } from '../../control-plane/src/crypto/secret-box.js';
import { fileKeyring, keyringFromKeys, newDataKey } from '../../control-plane/src/crypto/keyring.js';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { resealSecrets } from '../../control-plane/src/features/secrets/reseal-secrets.js';
import { createSealedValuesRepository } from '../../control-plane/src/features/secrets/sealed-values.repository.js';
import { createLogger } from '../../control-plane/src/logger.js';
import type { Assignment } from '../../shared/src/gen/agent.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase, testDatabase } from '../support/test-database.js';

const OAUTH2 = { token_url: 'https://auth.example.com/token', client_id: 'outpost' };

describe('organization secrets', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  const createSecret = (u: TestUser, name: string, value: string, token = u.token) => cp.api.post('/secrets', { name, value }, token);
  const storedValue = async (id: string) => (await sql<{ value: string }>('select value from organization_secrets where id = $1', [id]))[0]?.value;
  const storedOptions = async (id: string) => (await sql<{ options: Record<string, any> }>('select options from services where id = $1', [id]))[0]!.options;
  const multistep = (u: TestUser, options: Record<string, unknown>, fields: Record<string, unknown> = {}) =>
    cp.api.post('/services', { name: `flow-${randomBytes(3).toString('hex')}`, check_type: 'MULTISTEP', endpoint: 'https://api.example.com/', options, ...fields }, u.token);

  describe('CRUD', () => {
    it('creates a secret and answers its name and dates, never its value, which is stored sealed', async () => {
      const u = await cp.api.newUser('secrets-crud');
      const created = await createSecret(u, 'API_TOKEN', 'tok-3f9a-plain');
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.have.all.keys('id', 'organization_id', 'name', 'used_by', 'created_at', 'updated_at');
      expect(created.body).to.deep.include({ organization_id: u.orgId, name: 'API_TOKEN', used_by: [] });

      const stored = await storedValue(created.body.id);
      expect(stored).to.match(/^enc:v2:/).and.not.include('tok-3f9a');
      const list = await cp.api.get('/secrets', u.token);
      expect(list.status).to.equal(200);
      expect(list.body.map((s: { name: string }) => s.name)).to.deep.equal(['API_TOKEN']);
      const one = await cp.api.get(`/secrets/${created.body.id}`, u.token);
      expect(one.body).to.deep.equal(created.body);
      for (const answer of [created, list, one]) expect(answer.text).not.to.include('tok-3f9a');
    });

    it('refuses bad names and values and unknown fields with 400, and a name taken with 409', async () => {
      const u = await cp.api.newUser('secrets-invalid');
      const bad: [unknown, string][] = [
        [{ name: '1TOKEN', value: 'v' }, 'name'],
        [{ name: 'API-TOKEN', value: 'v' }, 'name'],
        [{ name: 'A'.repeat(65), value: 'v' }, 'name'],
        [{ value: 'v' }, 'name'],
        [{ name: 'EMPTY', value: '' }, 'value'],
        [{ name: 'LONG', value: 'x'.repeat(8193) }, 'value'],
        [{ name: 'NUMBER', value: 42 }, 'value'],
        [{ name: 'EXTRA', value: 'v', scope: 'all' }, ''],
      ];
      for (const [body, path] of bad) {
        const r = await cp.api.post('/secrets', body, u.token);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.details.map((d: { path: string }) => d.path), JSON.stringify(body)).to.include(path);
      }
      expect((await createSecret(u, 'LONGEST', 'x'.repeat(8192))).status).to.equal(201);
      expect((await createSecret(u, 'DB_PASSWORD', 'one')).status).to.equal(201);
      const taken = await createSecret(u, 'DB_PASSWORD', 'two');
      expect(taken.status).to.equal(409);
      expect(taken.body.error).to.equal('a secret named "DB_PASSWORD" already exists');
      // Names are case-sensitive, as the variables they look like.
      expect((await createSecret(u, 'db_password', 'three')).status).to.equal(201);
      // Another organization's names are its own.
      expect((await createSecret(await cp.api.newUser('secrets-other'), 'DB_PASSWORD', 'four')).status).to.equal(201);
    });

    it('changes the value, accepts the fields it answered, and refuses a rename', async () => {
      const u = await cp.api.newUser('secrets-update');
      const created = (await createSecret(u, 'SMTP_PASSWORD', 'first-value')).body;
      const before = await storedValue(created.id);

      const changed = await cp.api.put(`/secrets/${created.id}`, { ...created, value: 'second-value' }, u.token);
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.text).not.to.include('second-value');
      expect(Date.parse(changed.body.updated_at)).to.be.at.least(Date.parse(created.updated_at));
      const after = await storedValue(created.id);
      expect(after).to.match(/^enc:v2:/).and.not.equal(before).and.not.include('second-value');

      const renamed = await cp.api.put(`/secrets/${created.id}`, { name: 'MAIL_PASSWORD', value: 'third' }, u.token);
      expect(renamed.status).to.equal(400);
      expect(renamed.body.error).to.equal('a secret cannot be renamed');
      expect(await storedValue(created.id)).to.equal(after);
      expect((await cp.api.put(`/secrets/${created.id}`, { value: '' }, u.token)).status).to.equal(400);
    });

    it('answers 400 for an id that is not a UUID and 404 for an unknown or foreign id', async () => {
      const u = await cp.api.newUser('secrets-ids');
      const other = await cp.api.newUser('secrets-ids-other');
      const foreign = (await createSecret(other, 'THEIRS', 'v')).body.id;
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const json = method === 'PUT' ? { value: 'x' } : undefined;
        expect((await cp.api.request(method, '/secrets/not-a-uuid', { token: u.token, json })).status, method).to.equal(400);
        expect((await cp.api.request(method, `/secrets/${foreign}`, { token: u.token, json })).status, method).to.equal(404);
        expect((await cp.api.request(method, `/secrets/${randomUUID()}`, { token: u.token, json })).status, method).to.equal(404);
      }
    });

    it('deletes a secret no service uses', async () => {
      const u = await cp.api.newUser('secrets-delete');
      const created = (await createSecret(u, 'UNUSED', 'v')).body;
      const deleted = await cp.api.del(`/secrets/${created.id}`, u.token);
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      expect((await cp.api.get(`/secrets/${created.id}`, u.token)).status).to.equal(404);
      expect(await storedValue(created.id)).to.equal(undefined);
    });
  });

  describe('roles', () => {
    it('lets admins and owners write, and members and viewers read the names only', async () => {
      const owner = await cp.api.newUser('secrets-roles');
      const created = (await createSecret(owner, 'OWNER_MADE', 'v')).body;
      const admin = await cp.api.keyWithRole(owner, 'admin');
      expect((await createSecret(owner, 'ADMIN_MADE', 'v', admin)).status).to.equal(201);
      expect((await cp.api.put(`/secrets/${created.id}`, { value: 'w' }, admin)).status).to.equal(200);

      for (const role of ['member', 'viewer'] as const) {
        const key = await cp.api.keyWithRole(owner, role);
        const list = await cp.api.get('/secrets', key);
        expect(list.status, role).to.equal(200);
        expect(list.body.map((s: { name: string }) => s.name), role).to.deep.equal(['ADMIN_MADE', 'OWNER_MADE']);
        expect((await cp.api.get(`/secrets/${created.id}`, key)).status, role).to.equal(200);
        const refused = await createSecret(owner, `${role.toUpperCase()}_MADE`, 'v', key);
        expect(refused.status, role).to.equal(403);
        expect(refused.body.error).to.equal(`the ${role} role cannot manage secrets; admins and owners can`);
        expect((await cp.api.put(`/secrets/${created.id}`, { value: 'x' }, key)).status, role).to.equal(403);
        expect((await cp.api.del(`/secrets/${created.id}`, key)).status, role).to.equal(403);
      }
    });
  });

  describe('references from services', () => {
    it('refuses a reference to a secret the organization does not have, naming its path, on create and update', async () => {
      const u = await cp.api.newUser('secrets-missing');
      await createSecret(await cp.api.newUser('secrets-missing-other'), 'API_TOKEN', 'not yours');
      const steps = [
        { name: 'login', url: 'https://api.example.com/login' },
        { name: 'list', url: 'https://api.example.com/items', headers: { Authorization: 'Bearer {{secrets.API_TOKEN}}' } },
      ];
      const created = await multistep(u, { steps });
      expect(created.status, created.text).to.equal(400);
      expect(created.body.error).to.equal('options.steps.1.headers.Authorization: secret "API_TOKEN" does not exist');
      expect(created.body.details).to.deep.equal([{ path: 'options.steps.1.headers.Authorization', message: 'secret "API_TOKEN" does not exist' }]);

      const plain = await cp.api.post('/services', { name: 'web', check_type: 'HTTP', endpoint: 'https://example.com/' }, u.token);
      const updated = await cp.api.put(`/services/${plain.body.id}`, { options: { oauth2: { ...OAUTH2, client_secret: '{{ secrets.OAUTH_SECRET }}' } } }, u.token);
      expect(updated.status).to.equal(400);
      expect(updated.body.error).to.equal('options.oauth2.client_secret: secret "OAUTH_SECRET" does not exist');
      expect((await cp.api.get(`/services/${plain.body.id}`, u.token)).body.options).to.deep.equal({});
    });

    it('refuses a malformed reference and a secret option with text around its reference', async () => {
      const u = await cp.api.newUser('secrets-malformed');
      await createSecret(u, 'TOKEN', 'v');
      const malformed = await cp.api.post('/services', { name: 'a', check_type: 'HTTP', endpoint: 'https://example.com/', options: { body: '{"k": "{{secrets.bad-name}}"}' } }, u.token);
      expect(malformed.status).to.equal(400);
      expect(malformed.body.details[0].path).to.equal('options.body');
      const mixed = await cp.api.post('/services', { name: 'b', check_type: 'HTTP', endpoint: 'https://example.com/', options: { bearer_token: 'v1.{{secrets.TOKEN}}' } }, u.token);
      expect(mixed.status).to.equal(400);
      expect(mixed.body.details[0].path).to.equal('options.bearer_token');
    });

    it('keeps references as written, answers them unmasked in secret options, and lists the services using a secret', async () => {
      const u = await cp.api.newUser('secrets-used');
      const token = (await createSecret(u, 'API_TOKEN', 'tok-1')).body;
      await createSecret(u, 'UNUSED', 'v');
      const options = {
        oauth2: { ...OAUTH2, client_secret: '{{secrets.API_TOKEN}}' },
        steps: [{ name: 'one', url: 'https://api.example.com/?key={{secrets.API_TOKEN}}', body: '{"token": "{{ secrets.API_TOKEN }}"}' }],
      };
      const service = await multistep(u, options, { name: 'checkout flow' });
      expect(service.status, service.text).to.equal(201);
      expect(service.body.options).to.deep.equal(options);
      expect(await storedOptions(service.body.id)).to.deep.equal(options);

      const list = (await cp.api.get('/secrets', u.token)).body as { name: string; used_by: unknown[] }[];
      expect(list.find((s) => s.name === 'API_TOKEN')!.used_by).to.deep.equal([{ id: service.body.id, name: 'checkout flow' }]);
      expect(list.find((s) => s.name === 'UNUSED')!.used_by).to.deep.equal([]);
      expect((await cp.api.get(`/secrets/${token.id}`, u.token)).body.used_by).to.deep.equal([{ id: service.body.id, name: 'checkout flow' }]);
    });

    it('refuses to delete a secret services use, naming them, and deletes it once they are gone', async () => {
      const u = await cp.api.newUser('secrets-in-use');
      const secret = (await createSecret(u, 'DB_PASSWORD', 'pw')).body;
      const ids: string[] = [];
      for (const name of ['orders db', 'billing db']) {
        const r = await cp.api.post('/services', { name, check_type: 'POSTGRES', endpoint: '127.0.0.1:5432', options: { username: 'monitor', password: '{{secrets.DB_PASSWORD}}' } }, u.token);
        expect(r.status, r.text).to.equal(201);
        ids.push(r.body.id);
      }
      const refused = await cp.api.del(`/secrets/${secret.id}`, u.token);
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('secret "DB_PASSWORD" is used by services "orders db", "billing db"; remove the references first');
      expect(refused.body.details).to.deep.equal([
        { path: `used_by.${ids[0]}`, message: 'used by service "orders db"' },
        { path: `used_by.${ids[1]}`, message: 'used by service "billing db"' },
      ]);
      for (const id of ids) expect((await cp.api.del(`/services/${id}`, u.token)).status).to.equal(204);
      expect((await cp.api.del(`/secrets/${secret.id}`, u.token)).status).to.equal(204);
    });
  });

  describe('what agents receive', () => {
    let agent: ScriptedAgent | undefined;
    afterEach(() => agent?.close());

    const assignmentOf = (a: ScriptedAgent, serviceId: string, newerThan = 0): Assignment | undefined => {
      for (const m of [...a.received].reverse()) {
        const p = m.payload;
        const found = p?.$case === 'snapshot' ? p.value.assignments.find((x) => x.serviceId === serviceId) : p?.$case === 'upsert' && p.value.assignment?.serviceId === serviceId ? p.value.assignment : undefined;
        if (found && found.version > newerThan) return found;
      }
      return undefined;
    };

    it('gets the value in place of each reference, opened secret options, and the new value once it changes', async () => {
      const u = await cp.api.newUser('secrets-agent');
      const location = `secrets-${randomBytes(4).toString('hex')}`;
      const secret = (await createSecret(u, 'API_TOKEN', 'tok/1 first')).body;
      const options = {
        oauth2: { ...OAUTH2, client_secret: 'literal-client-secret' },
        proxy: 'http://monitor:{{secrets.API_TOKEN}}@proxy.internal:3128',
        steps: [
          { name: 'login', url: 'https://api.example.com/login', body: '{"token": "{{secrets.API_TOKEN}}"}' },
          { name: 'list', url: 'https://api.example.com/items', headers: { Authorization: 'Bearer {{ secrets.API_TOKEN }}' } },
        ],
      };
      const service = (await multistep(u, options, { locations: [location] })).body;
      const bystander = (await cp.api.post('/services', { name: 'plain', check_type: 'HTTP', endpoint: 'https://example.com/', locations: [location] }, u.token)).body;

      agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
      const first = await poll(() => assignmentOf(agent!, service.id), { what: 'the assignment' });
      expect(first.options).to.deep.equal({
        oauth2: { ...OAUTH2, client_secret: 'literal-client-secret' },
        proxy: 'http://monitor:tok%2F1%20first@proxy.internal:3128',
        steps: [
          { name: 'login', url: 'https://api.example.com/login', body: '{"token": "tok/1 first"}' },
          { name: 'list', url: 'https://api.example.com/items', headers: { Authorization: 'Bearer tok/1 first' } },
        ],
      });
      expect(JSON.stringify(assignmentOf(agent, bystander.id)!.options)).not.to.include('tok/1');

      expect((await cp.api.put(`/secrets/${secret.id}`, { value: 'tok-2' }, u.token)).status).to.equal(200);
      const next = await poll(() => assignmentOf(agent!, service.id, first.version), { what: 'the assignment with the new value' });
      expect(next.options!.steps[1].headers.Authorization).to.equal('Bearer tok-2');
      expect(next.options!.proxy).to.equal('http://monitor:tok-2@proxy.internal:3128');
      // The options as stored and answered still name the secret.
      expect((await cp.api.get(`/services/${service.id}`, u.token)).body.options.steps[1].headers.Authorization).to.equal('Bearer {{ secrets.API_TOKEN }}');
    });
  });

  describe('secret options nested in options', () => {
    it('seals oauth2.client_secret, answers it masked, and keeps it when the mask is sent back', async () => {
      const u = await cp.api.newUser('secrets-nested');
      const created = await cp.api.post('/services', { name: 'api', check_type: 'HTTP', endpoint: 'https://example.com/', options: { oauth2: { ...OAUTH2, client_secret: 'cs-42-plain' } } }, u.token);
      expect(created.status, created.text).to.equal(201);
      expect(created.body.options.oauth2).to.deep.equal({ ...OAUTH2, client_secret: '********' });
      const stored = (await storedOptions(created.body.id)).oauth2.client_secret;
      expect(stored).to.match(/^enc:v2:/).and.not.include('cs-42');

      const echoed = await cp.api.put(`/services/${created.body.id}`, { options: { ...created.body.options, oauth2: { ...created.body.options.oauth2, scopes: ['read'] } } }, u.token);
      expect(echoed.status, echoed.text).to.equal(200);
      expect((await storedOptions(created.body.id)).oauth2).to.deep.equal({ ...OAUTH2, client_secret: stored, scopes: ['read'] });
    });

    it('stores a proxy with a password sealed, answers it with the password masked, and keeps the password when that form is sent back', async () => {
      const u = await cp.api.newUser('secrets-proxy');
      const location = `proxy-${randomBytes(4).toString('hex')}`;
      const proxy = 'http://monitor:pr0xy-pass@proxy.internal:3128';
      const created = await cp.api.post('/services', { name: 'api', check_type: 'HTTP', endpoint: 'https://example.com/', locations: [location], options: { proxy } }, u.token);
      expect(created.status, created.text).to.equal(201);
      expect(created.body.options.proxy).to.equal('http://monitor:********@proxy.internal:3128');
      expect((await storedOptions(created.body.id)).proxy).to.match(/^enc:v2:/).and.not.include('pr0xy');

      const moved = await cp.api.put(`/services/${created.body.id}`, { options: { proxy: 'http://monitor:********@proxy2.internal:3128' } }, u.token);
      expect(moved.body.options.proxy).to.equal('http://monitor:********@proxy2.internal:3128');
      const agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
      try {
        const snapshot = await poll(() => agent.received.find((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
        if (snapshot.payload?.$case !== 'snapshot') throw new Error('no snapshot');
        expect(snapshot.payload.value.assignments[0]!.options!.proxy).to.equal('http://monitor:pr0xy-pass@proxy2.internal:3128');
      } finally {
        agent.close();
      }
      // A proxy without a password holds no secret.
      await cp.api.put(`/services/${created.body.id}`, { options: { proxy: 'http://proxy.internal:3128' } }, u.token);
      expect((await storedOptions(created.body.id)).proxy).to.equal('http://proxy.internal:3128');
    });
  });

  // Last: the control plane of this file cannot open what is re-sealed under a key it lacks.
  describe('key rotation', () => {
    it('re-seals secret values and nested secret options under the new data key', async function () {
      await requireServerDatabase(this, 'a second connection beside the control plane');
      const u = await cp.api.newUser('secrets-rotation');
      const secret = (await createSecret(u, 'ROTATED', 'rotated-value')).body;
      const service = (await cp.api.post('/services', { name: 'api', check_type: 'HTTP', endpoint: 'https://example.com/', options: { oauth2: { ...OAUTH2, client_secret: 'rotated-client-secret' } } }, u.token)).body;
      const next = newDataKey();
      // Other tests' values are sealed under their own control planes' keys: unreadable here, left alone.
      const box = createSecretBox(keyringFromKeys([next, fileKeyring(cp.dataDir).current()]));
      const db = await openDatabase({ url: (await testDatabase()).url, embeddedDataDir: null, poolSize: 1, logger: createLogger('silent') });
      try {
        const report = await resealSecrets(createSealedValuesRepository(db.em), box);
        expect(report.resealed).to.be.at.least(2);
      } finally {
        await db.close();
      }
      const value = (await storedValue(secret.id))!;
      const clientSecret = (await storedOptions(service.id)).oauth2.client_secret as string;
      for (const [sealed, plain] of [[value, 'rotated-value'], [clientSecret, 'rotated-client-secret']] as const) {
        expect(sealed.startsWith(`enc:v2:${next.id}:`), sealed).to.equal(true);
        expect(box.open(sealed)).to.equal(plain);
      }
    });
  });
});
