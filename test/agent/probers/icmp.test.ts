import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { createSite, netnsUnavailable } from '../../fixtures/netns.js';
import { peerBinary, requireCapability } from '../../fixtures/peers/require-peer.js';
import { runProbe } from './probe-helpers.js';

const isRoot = process.getuid?.() === 0;

/** Raw sockets need root here; without it the test says why it is skipped (CI requires it). */
function requireRoot(mocha: Mocha.Context, why = 'ICMP echo needs root or CAP_NET_RAW'): void {
  requireCapability(mocha, isRoot ? null : why);
}

describe('icmp prober', () => {
  it('is GREEN with the round-trip time for 127.0.0.1 (as root)', async function () {
    requireRoot(this);
    const r = await runProbe('PING', '127.0.0.1');
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^echo reply from 127\.0\.0\.1 in \d+ ms$/);
    expect(r.details.rtt_ms).to.be.a('number');
    expect(r.details, 'no lookup for an IP address').to.not.have.property('dns_ms');
  });

  it('never passes a silent host on the echo of another host checked at the same time', async function () {
    requireRoot(this);
    requireCapability(this, netnsUnavailable());
    peerBinary('/usr/sbin/iptables', 'iptables', this);
    // A host in a namespace of its own that drops every echo request: it never answers.
    const site = createSite(3);
    try {
      execFileSync('ip', ['netns', 'exec', site.namespace, 'iptables', '-A', 'INPUT', '-p', 'icmp', '--icmp-type', 'echo-request', '-j', 'DROP']);
      // The site's end of its /30, beside the test's end (hostAddress).
      const silent = site.hostAddress.replace(/\d+$/, (last) => String(Number(last) + 1));
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => runProbe('PING', i % 2 === 0 ? '127.0.0.1' : silent, {}, 1_000)));
      results.forEach((r, i) => expect(r.ok, `${i % 2 === 0 ? '127.0.0.1' : silent}: ${r.message}`).to.equal(i % 2 === 0));
    } finally {
      site.remove();
    }
  });

  it('resolves a host name first', async function () {
    requireRoot(this);
    const r = await runProbe('ICMP', 'localhost');
    expect(r.ok, r.message).to.equal(true);
    expect(r.details.dns_ms).to.be.a('number');
  });

  it('says it needs root or CAP_NET_RAW when it has neither', function () {
    this.timeout(30_000);
    // A child process without privileges: as root, drop to nobody with no capabilities.
    const script = path.resolve('test/fixtures/icmp-probe-once.ts');
    const node = [process.execPath, '--import', 'tsx', script];
    const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;
    if (isRoot) peerBinary('/usr/bin/setpriv', 'util-linux', this);
    const command = isRoot && hasSetpriv ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', ...node] : node;
    const out = execFileSync(command[0]!, command.slice(1), { encoding: 'utf8', cwd: process.cwd() });
    const result = JSON.parse(out) as { ok: boolean; message: string };
    expect(result.ok).to.equal(false);
    expect(result.message).to.match(/^ICMP needs root or CAP_NET_RAW \(raw socket: .+\)$/);
  });
});
