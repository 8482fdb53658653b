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
    ] as const) {
      it(`refuses ${name}=${value} with one line naming the variable`, () => {
        expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, new RegExp(`^invalid configuration: ${name} [^\\n]+$`));
      });
    }

    it('returns a frozen object', () => {
      expect(Object.isFrozen(loadConfig({}))).to.equal(true);
    });
  });
});
