import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { refusedEndpoint, tcpListener } from '../fixtures/peers/net-fixtures.js';

function cli(...args: string[]) {
  const env = { ...process.env, OUTPOST_SERVER: '', OUTPOST_TOKEN: '' };
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('agent/src/cli.ts'), ...args], { encoding: 'utf8', timeout: 30_000, env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('agent cli', function () {
  this.timeout(60_000);

  describe('check', () => {
    it('prints a passing result with its timings and exits 0', async () => {
      const listener = await tcpListener();
      try {
        const r = cli('check', '--type', 'tcp', '--endpoint', listener.endpoint);
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout).to.match(/^PASS TCP 127\.0\.0\.1:\d+: connected in \d+ ms/);
        expect(r.stdout).to.match(/connect_ms: /);
      } finally {
        await listener.close();
      }
    });

    it('exits 1 on a failing check, and prints JSON when asked', async () => {
      const r = cli('check', '--type', 'REDIS', '--endpoint', await refusedEndpoint(), '--json');
      expect(r.code).to.equal(1);
      expect(JSON.parse(r.stdout)).to.include({ check_type: 'REDIS', ok: false, message: 'connection refused' });
    });

    it('tries a failing check again with options.retries, listing the attempts', async () => {
      const r = cli('check', '--type', 'TCP', '--endpoint', await refusedEndpoint(), '--option', 'retries=1', '--option', 'retry_interval_seconds=1', '--json');
      expect(r.code, r.stderr).to.equal(1);
      const attempts = JSON.parse(r.stdout).details.attempts as { attempt: number; ok: boolean; started_at: string }[];
      expect(attempts.map((a) => [a.attempt, a.ok])).to.deep.equal([
        [1, false],
        [2, false],
      ]);
      expect(Date.parse(attempts[1]!.started_at) - Date.parse(attempts[0]!.started_at)).to.be.at.least(1_000);
    });

    it('takes an option value that reads as a number as text where the option wants text', async () => {
      // "1234" parses as JSON, but UDP's send is text (and SNMP's version "3", a community "12345").
      const r = cli('check', '--type', 'UDP', '--endpoint', await refusedEndpoint(), '--option', 'send=1234', '--json');
      expect(r.code, r.stderr).to.equal(1);
      expect(JSON.parse(r.stdout)).to.include({ check_type: 'UDP', ok: false });
      const bad = cli('check', '--type', 'SNMP', '--endpoint', '127.0.0.1', '--option', 'version=4');
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.match(/invalid option version: /);
    });

    it('exits 2 with a readable message for a bad invocation', () => {
      const unknown = cli('check', '--type', 'GOPHER', '--endpoint', '127.0.0.1:70');
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.match(/unknown check type "GOPHER"/);
      const badOption = cli('check', '--type', 'TCP', '--endpoint', '127.0.0.1:1', '--option', 'keyword=x');
      expect(badOption.code).to.equal(2);
      expect(badOption.stderr).to.match(/keyword is not an option of check_type TCP/);
      expect(cli('check', '--type', 'TCP').code).to.equal(2);
    });
  });

  describe('run', () => {
    it('refuses to start without a server, naming the option', () => {
      const r = cli('run', '--token', 'x');
      expect(r.code).to.equal(2);
      expect(r.stderr).to.match(/invalid option --server/);
    });
  });
});
