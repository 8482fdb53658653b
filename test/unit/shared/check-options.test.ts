import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';

describe('check options', () => {
  describe('parseCheckOptions', () => {
    it('accepts an empty object for every type', () => {
      for (const type of ['HTTP', 'TCP', 'PING', 'DNS', 'WS', 'SMTP', 'IMAP', 'FTP', 'SSH', 'REDIS', 'MARIADB', 'MONGO', 'POSTGRES', 'GRPC'] as const) {
        expect(parseCheckOptions(type, {}).ok, type).to.equal(true);
      }
    });

    it('accepts the HTTP options with status numbers and classes', () => {
      const parsed = parseCheckOptions('HTTPS', { method: 'HEAD', expected_status: [200, '3xx'], keyword: 'ok', keyword_inverted: true, follow_redirects: false, verify_tls: false, headers: { 'x-a': 'b' } });
      expect(parsed.ok).to.equal(true);
    });

    it('refuses an option that belongs to another type, naming it', () => {
      const parsed = parseCheckOptions('TCP', { keyword: 'x' });
      expect(parsed).to.deep.equal({ ok: false, issues: [{ path: '', message: 'keyword is not an option of check_type TCP' }] });
    });

    it('refuses wrong types and values', () => {
      expect(parseCheckOptions('HTTP', { method: 'FETCH' }).ok).to.equal(false);
      expect(parseCheckOptions('HTTP', { expected_status: [700] }).ok).to.equal(false);
      expect(parseCheckOptions('HTTP', { expected_status: ['2xxx'] }).ok).to.equal(false);
      expect(parseCheckOptions('DNS', { dns_record_type: 'ANY' }).ok).to.equal(false);
      expect(parseCheckOptions('REDIS', { password: 42 }).ok).to.equal(false);
      expect(parseCheckOptions('SSH', { min_failing_locations: 0 }).ok).to.equal(false);
    });

    it('accepts credentials for the handshake types', () => {
      expect(parseCheckOptions('POSTGRESQL', { username: 'u', password: 'p', database: 'd' }).ok).to.equal(true);
      expect(parseCheckOptions('SSH', { username: 'u', private_key: '-----BEGIN' }).ok).to.equal(true);
    });
  });
});
