// The dashboard's files are served from the API's origin: assets cached for good, every other
// path outside /api answered with the app so client-side routes survive a reload.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

describe('dashboard files', () => {
  let cp: TestControlPlane;
  let webDir: string;
  const INDEX = '<!doctype html><title>Outpost</title><div id="root"></div>';
  const SCRIPT = 'console.log("app");'.repeat(50);

  before(async () => {
    webDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-web-'));
    mkdirSync(path.join(webDir, 'assets'));
    writeFileSync(path.join(webDir, 'index.html'), INDEX);
    writeFileSync(path.join(webDir, 'assets', 'app-abc123.js'), SCRIPT);
    writeFileSync(path.join(webDir, 'assets', 'app-abc123.js.gz'), gzipSync(SCRIPT));
    writeFileSync(path.join(webDir, 'favicon.svg'), '<svg/>');
    mkdirSync(path.join(webDir, '.vite'));
    writeFileSync(path.join(webDir, '.vite', 'manifest.json'), '{"secret": "build record"}');
    cp = await startTestControlPlane({ env: { WEB_DIR: webDir } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(webDir, { recursive: true, force: true });
  });

  const get = (p: string, headers: Record<string, string> = {}) => fetch(`${cp.baseUrl}${p}`, { headers, signal: AbortSignal.timeout(5_000) });

  it('answers / and any client-side route with the app, never cached, with a strict content policy', async () => {
    for (const p of ['/', '/services', '/services/3f1c/edit', '/status/acme', '/index.html']) {
      const res = await get(p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(await res.text()).to.equal(INDEX);
    }
  });

  it('serves hashed assets as immutable, gzipped for clients that accept it', async () => {
    const plain = await get('/assets/app-abc123.js', { 'accept-encoding': 'identity' });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(plain.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(await plain.text()).to.equal(SCRIPT);

    const gzipped = await get('/assets/app-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers.get('content-encoding')).to.equal('gzip');
    expect(Number(gzipped.headers.get('content-length'))).to.be.below(SCRIPT.length);
    expect(await gzipped.text()).to.equal(SCRIPT);

    const favicon = await get('/favicon.svg');
    expect(favicon.headers.get('content-type')).to.equal('image/svg+xml');
    expect(favicon.headers.get('cache-control')).to.equal('no-cache');
  });

  it('answers 404 JSON for a missing asset and never serves files outside its folder', async () => {
    const missing = await get('/assets/gone-000.js');
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.have.property('error');
    for (const p of ['/.vite/manifest.json', '/..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2f..%2fetc%2fpasswd', '/%E0%A4%A']) {
      const res = await get(p);
      expect(await res.text(), p).to.not.match(/root:|"name": "outpost"|build record/);
    }
  });

  it('leaves /api to the API: unknown API paths stay JSON 404s', async () => {
    const res = await get('/api/v1/no-such-thing');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const health = await get('/api/v1/health');
    expect(await health.text()).to.equal('OK');
  });

  it('answers HEAD without a body and leaves other methods outside /api alone', async () => {
    const head = await fetch(`${cp.baseUrl}/services`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    const post = await fetch(`${cp.baseUrl}/services`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).to.equal(404);
    expect(post.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('sends large API answers gzipped to clients that accept it, small ones as they are', async () => {
    const user = await cp.api.newUser('gzip');
    await cp.api.put('/organization', { plan: 'unlimited' }, user.token);
    for (let i = 0; i < 40; i++) {
      const created = await cp.api.post('/services', { name: `svc-${i}`, description: 'x'.repeat(400), endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token);
      expect(created.status).to.equal(201);
    }
    const auth = { authorization: `Bearer ${user.token}` };
    const large = await get('/api/v1/services', { ...auth, 'accept-encoding': 'gzip' });
    expect(large.headers.get('content-encoding')).to.equal('gzip');
    expect((await large.json()) as unknown[]).to.have.length(40);
    const identity = await get('/api/v1/services', { ...auth, 'accept-encoding': 'identity' });
    expect(identity.headers.get('content-encoding')).to.equal(null);
    const small = await get('/api/v1/organization', { ...auth, 'accept-encoding': 'gzip' });
    expect(small.headers.get('content-encoding')).to.equal(null);
  });

  it('says how to build the dashboard when it is missing', async () => {
    const bare = await startTestControlPlane({ env: { WEB_DIR: path.join(webDir, 'absent') } });
    try {
      const res = await fetch(`${bare.baseUrl}/services`);
      expect(res.status).to.equal(503);
      expect(await res.text()).to.include('npm run build:web');
    } finally {
      await bare.stop();
    }
  });
});
