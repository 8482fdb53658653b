import { expect } from 'chai';
import { parseCheckOptions, SECRET_OPTION_KEYS } from '../../../shared/src/check-options.js';
import { CHECK_TYPES, type CheckType } from '../../../shared/src/check-types.js';

/** The options a check type cannot go without: MULTISTEP's steps, the datagram of UDP, a RADIUS request's secret and user. */
const REQUIRED: Partial<Record<CheckType, Record<string, unknown>>> = {
  MULTISTEP: { steps: [{ name: 'one', url: '/' }] },
  UDP: { send: 'ping\\n' },
  RADIUS: { secret: 'testing123', username: 'probe' },
};

describe('check options', () => {
  describe('parseCheckOptions', () => {
    it('accepts an empty, absent or null object for every check type but those with required options, which refuse it', () => {
      expect(CHECK_TYPES).to.have.length(34);
      for (const type of CHECK_TYPES.filter((t) => REQUIRED[t] === undefined)) {
        for (const raw of [{}, undefined, null]) expect(parseCheckOptions(type, raw), `${type} ${String(raw)}`).to.deep.equal({ ok: true, options: {} });
      }
      expect(parseCheckOptions('MULTISTEP', {})).to.deep.include({ ok: false });
      expect(parseCheckOptions('MULTISTEP', { steps: [] })).to.deep.include({ ok: false });
      expect(parseCheckOptions('UDP', {})).to.deep.equal({ ok: false, issues: [{ path: 'send', message: 'a UDP check sends one datagram: give send or send_hex (not both)' }] });
      const radius = parseCheckOptions('RADIUS', null);
      expect(radius.ok ? [] : radius.issues.map((i) => i.path)).to.deep.equal(['secret', 'username']);
    });

    it('accepts min_failing_locations for every check type, from 1 up', () => {
      for (const type of CHECK_TYPES) expect(parseCheckOptions(type, { min_failing_locations: 2, ...REQUIRED[type] }).ok, type).to.equal(true);
      expect(parseCheckOptions('SSH', { min_failing_locations: 0 }).ok).to.equal(false);
      expect(parseCheckOptions('TCP', { min_failing_locations: 1.5 }).ok).to.equal(false);
    });

    it('accepts retries from 0 to 10 and retry_interval_seconds from 1 to 300 for every check type, whole numbers only', () => {
      for (const type of CHECK_TYPES) {
        const options = { retries: 10, retry_interval_seconds: 300, ...REQUIRED[type] };
        expect(parseCheckOptions(type, options), type).to.deep.equal({ ok: true, options });
      }
      expect(parseCheckOptions('TCP', { retries: 0, retry_interval_seconds: 1 }).ok).to.equal(true);
      const refused: [Record<string, unknown>, string][] = [
        [{ retries: 11 }, 'retries'],
        [{ retries: -1 }, 'retries'],
        [{ retries: 1.5 }, 'retries'],
        [{ retries: '2' }, 'retries'],
        [{ retry_interval_seconds: 0 }, 'retry_interval_seconds'],
        [{ retry_interval_seconds: 301 }, 'retry_interval_seconds'],
        [{ retry_interval_seconds: 2.5 }, 'retry_interval_seconds'],
      ];
      for (const [raw, path] of refused) {
        const parsed = parseCheckOptions('HTTP', raw);
        expect(parsed.ok ? [] : parsed.issues.map((i) => i.path), JSON.stringify(raw)).to.deep.equal([path]);
      }
    });

    it('accepts the HTTP options with status numbers and classes, and returns them as given', () => {
      const options = { method: 'HEAD', expected_status: [200, '3xx'], keyword: 'ok', keyword_inverted: true, follow_redirects: false, verify_tls: false, headers: { 'x-a': 'b' }, body: '{}' };
      expect(parseCheckOptions('HTTPS', options)).to.deep.equal({ ok: true, options });
    });

    it('refuses an option that belongs to another type, naming it', () => {
      expect(parseCheckOptions('TCP', { keyword: 'x' })).to.deep.equal({ ok: false, issues: [{ path: '', message: 'keyword is not an option of check_type TCP' }] });
      expect(parseCheckOptions('PING', { password: 'x', tls: true })).to.deep.equal({ ok: false, issues: [{ path: '', message: 'password, tls are not options of check_type PING' }] });
    });

    it('refuses wrong types and values, with the path of the bad value', () => {
      const cases: [Parameters<typeof parseCheckOptions>[0], Record<string, unknown>, string][] = [
        ['HTTP', { method: 'FETCH' }, 'method'],
        ['HTTP', { expected_status: [700] }, 'expected_status.0'],
        ['HTTP', { expected_status: [200, '2xxx'] }, 'expected_status.1'],
        ['HTTP', { expected_status: [] }, 'expected_status'],
        ['HTTP', { headers: { 'x-a': 1 } }, 'headers.x-a'],
        ['HTTP', { headers: { 'x-a': 'one\r\nx-injected: two' } }, 'headers.x-a'],
        ['WEBSOCKET', { headers: { 'x-a': 'bell\u0007' } }, 'headers.x-a'],
        ['HTTP', { headers: { 'x a': 'b' } }, 'headers.x a'],
        ['HTTP', { headers: { 'x-a:': 'b' } }, 'headers.x-a:'],
        ['HTTP', { follow_redirects: 'yes' }, 'follow_redirects'],
        ['DNS', { dns_record_type: 'ANY' }, 'dns_record_type'],
        ['REDIS', { password: 42 }, 'password'],
        ['GRPC', { tls: 'true' }, 'tls'],
      ];
      for (const [type, raw, path] of cases) {
        const parsed = parseCheckOptions(type, raw);
        expect(parsed.ok, JSON.stringify(raw)).to.equal(false);
        if (!parsed.ok) expect(parsed.issues.map((i) => i.path), JSON.stringify(raw)).to.include(path);
      }
    });

    it('refuses options that are not an object', () => {
      for (const raw of ['GET', 42, [1, 2], true]) expect(parseCheckOptions('HTTP', raw).ok, JSON.stringify(raw)).to.equal(false);
    });

    it('accepts a resolver address with or without a port, and refuses a name', () => {
      for (const resolver of ['127.0.0.1', '127.0.0.1:5353', '::1', '[::1]', '[::1]:53']) expect(parseCheckOptions('DNS', { resolver }).ok, resolver).to.equal(true);
      for (const resolver of ['dns.internal', 'dns.internal:53', '127.0.0.1:99999', '']) expect(parseCheckOptions('DNS', { resolver }).ok, resolver).to.equal(false);
    });

    it('refuses a JSONPath whose filter runs a backtracking pattern, and takes the other filters', () => {
      const at = (property: string) => parseCheckOptions('HTTP', { assertions: [{ source: 'json', property, comparison: 'exists' }] });
      expect(at('$.items[?match(@.name, "(a+)+$")]')).to.deep.equal({
        ok: false,
        issues: [{ path: 'assertions.0.property', message: 'match() is not run here, since its pattern could backtrack without end; select the value and use a matches assertion' }],
      });
      expect(at('$..[?search(@, "x")]').ok).to.equal(false);
      expect(at('$.items[?@.price < 10 && length(@.name) > 2].name').ok).to.equal(true);
      const extract = parseCheckOptions('MULTISTEP', { steps: [{ name: 's', url: '/', extract: [{ name: 'v', source: 'json', property: '$[?match(@, "a")]' }] }] });
      expect(extract.ok).to.equal(false);
    });

    it('refuses client options that contradict each other or come without their pair', () => {
      const cert = '-----BEGIN CERTIFICATE-----';
      const issue = (raw: Record<string, unknown>) => {
        const parsed = parseCheckOptions('HTTPS', raw);
        return parsed.ok ? undefined : parsed.issues[0]!.path;
      };
      expect(issue({ bearer_token: 't', oauth2: { token_url: 'https://auth.example.com/token', client_id: 'c' } })).to.equal('bearer_token');
      expect(issue({ client_certificate: cert })).to.equal('client_key');
      expect(issue({ client_key: 'k' })).to.equal('client_certificate');
      expect(issue({ client_certificate: cert, client_key: 'k' })).to.equal(undefined);
      expect(issue({ proxy: 'https://proxy.internal:3128' })).to.equal('proxy');
      expect(issue({ proxy: 'http://u:p@proxy.internal:3128' })).to.equal(undefined);
    });

    it('accepts credentials for the handshake types only', () => {
      expect(parseCheckOptions('POSTGRESQL', { username: 'u', password: 'p', database: 'd' }).ok).to.equal(true);
      expect(parseCheckOptions('MARIADB', { username: 'u', password: 'p', database: 'd' }).ok).to.equal(true);
      expect(parseCheckOptions('MONGO', { username: 'u', password: 'p', database: 'admin' }).ok).to.equal(true);
      expect(parseCheckOptions('REDIS', { username: 'u', password: 'p' }).ok).to.equal(true);
      expect(parseCheckOptions('SSH', { username: 'u', private_key: '-----BEGIN' }).ok).to.equal(true);
      expect(parseCheckOptions('REDIS', { database: 'd' }).ok).to.equal(false);
      expect(parseCheckOptions('FTP', { username: 'u' }).ok).to.equal(false);
    });
  });

  describe('TLS_CERTIFICATE options', () => {
    it('takes warn_days from 1 to 365 and a ca_certificate string, nothing else', () => {
      expect(parseCheckOptions('TLS_CERTIFICATE', { warn_days: 30, ca_certificate: '-----BEGIN CERTIFICATE-----' }).ok).to.equal(true);
      for (const warn_days of [0, 366, 1.5, '30']) expect(parseCheckOptions('TLS_CERTIFICATE', { warn_days }).ok, String(warn_days)).to.equal(false);
      expect(parseCheckOptions('TLS_CERTIFICATE', { verify_tls: false }).ok).to.equal(false);
    });
  });

  describe('SECRET_OPTION_KEYS', () => {
    it('names the credentials of every family as paths, nested ones dotted', () => {
      expect([...SECRET_OPTION_KEYS]).to.deep.equal([
        'password',
        'private_key',
        'bearer_token',
        'client_key',
        'oauth2.client_secret',
        'community',
        'auth_password',
        'priv_password',
        'secret',
        'token',
      ]);
    });

    it('names only options some check type takes as text, at that path', () => {
      const oauth2 = { token_url: 'https://auth.example.com/token', client_id: 'outpost' };
      const holders: Record<(typeof SECRET_OPTION_KEYS)[number], [CheckType, (value: unknown) => Record<string, unknown>]> = {
        password: ['REDIS', (v) => ({ password: v })],
        private_key: ['SSH', (v) => ({ private_key: v })],
        bearer_token: ['HTTP', (v) => ({ bearer_token: v })],
        client_key: ['MULTISTEP', (v) => ({ client_certificate: '-----BEGIN CERTIFICATE-----', client_key: v, steps: [{ name: 'one', url: 'https://example.com/' }] })],
        'oauth2.client_secret': ['WEBSOCKET', (v) => ({ oauth2: { ...oauth2, client_secret: v } })],
        community: ['SNMP', (v) => ({ community: v })],
        auth_password: ['SNMP', (v) => ({ version: '3', username: 'monitor', auth_password: v })],
        priv_password: ['SNMP', (v) => ({ version: '3', username: 'monitor', auth_password: 'auth-pass-1', priv_password: v })],
        secret: ['RADIUS', (v) => ({ secret: v, username: 'probe' })],
        token: ['NATS', (v) => ({ token: v })],
      };
      for (const key of SECRET_OPTION_KEYS) {
        const [type, options] = holders[key];
        expect(parseCheckOptions(type, options('{{secrets.TOKEN}}')).ok, key).to.equal(true);
        expect(parseCheckOptions(type, options(42)), key).to.deep.include({ ok: false });
      }
    });

    it('takes a proxy whose password is a reference to an organization secret', () => {
      expect(parseCheckOptions('HTTP', { proxy: 'http://monitor:{{secrets.PROXY_PASSWORD}}@proxy.internal:3128' }).ok).to.equal(true);
    });
  });
});
