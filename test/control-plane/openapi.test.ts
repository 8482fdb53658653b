// The OpenAPI document: valid OpenAPI 3.1, one operation for every route and no other, served
// without credentials, and rendered by the docs page. (Every answer the API tests receive is
// also checked against it, in test/support/api-client.ts.)
import { compileErrors, validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import { createApiRouter, type AppDeps } from '../../control-plane/src/app.js';
import { openApiPath } from '../../control-plane/src/http/openapi/openapi-document.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { assertAnswerMatchesContract, openApiDocument } from '../support/openapi-contract.js';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** Every (method, path) the router answers, `GET /api/v1/services/{id}`; HEAD goes with GET. */
function routerOperations(): string[] {
  // Building the routes touches no dependency; any one a route factory reads is a stub.
  const stub: any = new Proxy(() => stub, { get: (_, key) => (key === 'then' ? undefined : stub) });
  const deps = new Proxy({ apiLimiter: undefined } as Partial<AppDeps>, { get: (target, key) => (key in target ? target[key as keyof AppDeps] : stub) }) as AppDeps;
  const found = new Set<string>();
  for (const layer of createApiRouter(deps).stack) {
    for (const method of layer.methods.map((m) => m.toLowerCase()).filter((m) => METHODS.includes(m))) {
      found.add(`${method.toUpperCase()} ${openApiPath(String(layer.path))}`);
    }
  }
  return [...found].sort();
}

function documentOperations(): string[] {
  const doc = openApiDocument();
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = openApiDocument();
    expect(doc.openapi).to.equal('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
  });

  it('has an operation for every route and a route for every operation', () => {
    const routes = routerOperations();
    const operations = documentOperations();
    expect(routes.length).to.be.greaterThan(50);
    expect(routes.filter((r) => !operations.includes(r)), 'routes without an operation').to.deep.equal([]);
    expect(operations.filter((o) => !routes.includes(o)), 'operations without a route').to.deep.equal([]);
  });

  it('marks public routes and asks for a bearer JWT or an API key elsewhere', () => {
    const doc = openApiDocument();
    expect(doc.security).to.deep.equal([{ bearerJwt: [] }, { apiKey: [] }]);
    expect(doc.paths['/api/v1/auth/login'].post.security).to.deep.equal([]);
    expect(doc.paths['/api/v1/status-pages/{slug}/public'].get.security).to.deep.equal([]);
    expect(doc.paths['/api/v1/services'].get.security).to.equal(undefined);
    expect(doc.paths['/api/v1/services'].get.responses['401'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
  });

  it('describes request bodies, parameters and every answer with its shape', () => {
    const create = openApiDocument().paths['/api/v1/services'].post;
    const body = create.requestBody.content['application/json'].schema;
    expect(body.required).to.have.members(['name', 'endpoint', 'check_type']);
    expect(body.properties.timeout_seconds).to.include({ minimum: 1, maximum: 120, default: 10 });
    expect(Object.keys(create.responses)).to.include.members(['201', '400', '401', '403', '413', '415', '429']);
    expect(create.responses['201'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Service' });
    const checks = openApiDocument().paths['/api/v1/services/{id}/checks'].get;
    expect(checks.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).to.deep.equal(['path:id', 'query:limit', 'query:before', 'query:location']);
  });

  describe('checking answers (as ApiClient does for every API test)', () => {
    const id = '00000000-0000-4000-8000-000000000001';

    it('names the route and the mismatch when a body does not match', () => {
      expect(() => assertAnswerMatchesContract('GET', `/services/${id}`, 200, 'application/json', JSON.stringify({ id: 1 }))).to.throw(
        /GET \/api\/v1\/services\/\{id\} → 200 does not match the document: .*id must be string/,
      );
    });

    it('refuses a status the operation does not document', () => {
      expect(() => assertAnswerMatchesContract('DELETE', `/services/${id}`, 500, 'application/json', '{"error":"internal server error"}')).to.throw(/is not a documented answer/);
    });

    it('accepts a documented error and a literal path over a parameter', () => {
      assertAnswerMatchesContract('GET', `/services/${id}?x=1`, 404, 'application/json', JSON.stringify({ error: 'service not found', code: 'NOT_FOUND' }));
      const summary = { total: 0, statuses: { GREEN: 0, YELLOW: 0, RED: 0, PENDING: 0 }, tags: [], environments: [], locations: [], check_types: [] };
      assertAnswerMatchesContract('GET', '/services/summary', 200, 'application/json; charset=utf-8', JSON.stringify(summary));
    });
  });

  describe('served', () => {
    let cp: TestControlPlane;
    before(async () => {
      cp = await startTestControlPlane();
    });
    after(async () => {
      await cp?.stop();
    });

    it('answers the document at /api/v1/openapi.json without credentials', async () => {
      const res = await cp.api.get('/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.body.openapi).to.equal('3.1.0');
      expect(res.body.paths).to.have.property('/api/v1/services');
    });

    it('serves the docs page and its viewer from this machine', async () => {
      const page = await fetch(`${cp.baseUrl}/docs`);
      expect(page.status).to.equal(200);
      const html = await page.text();
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((s) => !s.startsWith('data:'));
      expect(sources).to.have.length(3);
      for (const source of sources) {
        expect(source, 'nothing from another origin').to.match(/^\/docs\//);
        const asset = await fetch(`${cp.baseUrl}${source}`);
        expect(asset.status, source).to.equal(200);
        expect((await asset.arrayBuffer()).byteLength, source).to.be.greaterThan(50);
      }
    });
  });
});
