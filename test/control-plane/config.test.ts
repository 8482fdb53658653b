import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../control-plane/src/config.js';

describe('config', () => {
  describe('loadConfig', () => {
    it('applies the documented defaults when nothing is set', () => {
      const config = loadConfig({});
      expect(config).to.include({ port: 8080, grpcPort: 9090, host: '0.0.0.0', dataDir: './data', logLevel: 'info', embeddedAgent: true });
      expect(config.databaseUrl).to.equal(undefined);
      expect(config.jwtSecret).to.equal(undefined);
    });

    it('starts new organizations on the free plan unless DEFAULT_PLAN names another plan', () => {
      expect(loadConfig({}).defaultPlan).to.equal('free');
      expect(loadConfig({ DEFAULT_PLAN: 'unlimited' }).defaultPlan).to.equal('unlimited');
      expect(() => loadConfig({ DEFAULT_PLAN: 'gold' })).to.throw(ConfigError, /DEFAULT_PLAN must be one of free, unlimited/);
    });

    it('treats empty variables as unset', () => {
      expect(loadConfig({ PORT: '', DATABASE_URL: '' })).to.include({ port: 8080, databaseUrl: undefined });
    });

    it('parses EMBEDDED_AGENT=false and numeric ports', () => {
      expect(loadConfig({ EMBEDDED_AGENT: 'false', PORT: '3000', GRPC_PORT: '3001' })).to.include({ embeddedAgent: false, port: 3000, grpcPort: 3001 });
    });

    for (const [name, value] of [
      ['PORT', 'eighty'],
      ['PORT', '70000'],
      ['GRPC_PORT', '-1'],
      ['DATABASE_URL', 'mysql://x'],
      ['LOG_LEVEL', 'chatty'],
      ['EMBEDDED_AGENT', 'maybe'],
      ['JWT_SECRET', 'short'],
      ['DATA_ENCRYPTION_KEYS', 'k1:dG9vLXNob3J0'],
      ['TRUSTED_PROXIES', '10.0.0.0/8,not-an-address'],
      ['API_RATE_LIMIT', 'lots'],
      ['HTTP_REQUEST_TIMEOUT_SECONDS', '0'],
      ['METRICS_ADDR', '9464'],
      ['METRICS_ADDR', '127.0.0.1:99999'],
      ['METRICS_PER_SERVICE', 'some'],
      ['METRICS_MAX_SERVICES', '0'],
      ['DEFAULT_PLAN', 'platinum'],
      ['DEFAULT_PLAN', '__proto__'],
      ['PUBLIC_URL', 'status.example.com'],
      ['PUBLIC_URL', 'ftp://status.example.com'],
      ['PUBLIC_URL', 'https://status.example.com/'],
      ['PUBLIC_GRPC_ADDRESS', 'outpost.example.com'],
      ['PUBLIC_GRPC_ADDRESS', 'outpost.example.com:70000'],
      ['PUBLIC_GRPC_ADDRESS', 'http://outpost.example.com:9090'],
    ] as const) {
      it(`refuses ${name}=${value} with one line naming the variable`, () => {
        expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, new RegExp(`^invalid configuration: ${name} [^\\n]+$`));
      });
    }

    it('never echoes the value of a secret it refuses', () => {
      for (const [name, value] of [['JWT_SECRET', 'leaked-but-short'], ['DATA_ENCRYPTION_KEYS', 'k1:bGVha2Vk'], ['DATABASE_URL', 'mysql://root:leaked@db'], ['METRICS_TOKEN', 'leaked']] as const) {
        expect(() => loadConfig({ [name]: value })).to.throw(ConfigError).with.property('message').that.does.not.include('leaked').and.not.include('bGVha2Vk');
      }
    });

    it('parses rate limits, trusted proxies and data keys', () => {
      const key = Buffer.alloc(32, 7).toString('base64');
      const config = loadConfig({ API_RATE_LIMIT: '100/10', REGISTRATION_RATE_LIMIT: 'off', TRUSTED_PROXIES: '10.0.0.0/8, loopback', DATA_ENCRYPTION_KEYS: `new:${key}, old:${key}` });
      expect(config.limits.api).to.deep.equal({ points: 100, windowSeconds: 10 });
      expect(config.limits.registrations).to.equal(undefined);
      expect(config.http.trustedProxies).to.deep.equal(['10.0.0.0/8', 'loopback']);
      expect(config.dataEncryptionKeys?.map((k) => k.id)).to.deep.equal(['new', 'old']);
      expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '60', HTTP_REQUEST_TIMEOUT_SECONDS: '30' })).to.throw(ConfigError, /must not exceed/);
    });

    it('serves metrics on the API port, per service, by default; parses a listen address of their own', () => {
      expect(loadConfig({}).metrics).to.deep.equal({ address: undefined, token: undefined, perService: true, maxServices: 10_000 });
      const config = loadConfig({ METRICS_ADDR: '[::1]:9464', METRICS_TOKEN: 'scrape-token-0123456789', METRICS_PER_SERVICE: 'off', METRICS_MAX_SERVICES: '500' });
      expect(config.metrics).to.deep.equal({ address: { host: '::1', port: 9464 }, token: 'scrape-token-0123456789', perService: false, maxServices: 500 });
      expect(loadConfig({ METRICS_ADDR: '0.0.0.0:0' }).metrics.address).to.deep.equal({ host: '0.0.0.0', port: 0 });
    });

    it('takes PUBLIC_URL for dashboard links, else derives it from HOST and PORT', () => {
      expect(loadConfig({ PUBLIC_URL: 'https://outpost.example.com/ops' }).notifications.publicUrl).to.equal('https://outpost.example.com/ops');
      expect(loadConfig({}).notifications.publicUrl).to.equal('http://127.0.0.1:8080');
      expect(loadConfig({ HOST: 'monitor.internal', PORT: '3000' }).notifications.publicUrl).to.equal('http://monitor.internal:3000');
      expect(loadConfig({ HOST: '::1' }).notifications.publicUrl).to.equal('http://[::1]:8080');
    });

    it('returns a frozen object', () => {
      expect(Object.isFrozen(loadConfig({}))).to.equal(true);
    });
  });
});
