import { execFileSync } from 'node:child_process';
import dns from 'node:dns/promises';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { tracerouteProber } from '../../../agent/src/probers/traceroute.js';
import { DeadlineSignal } from '../../../agent/src/probers/probe-signal.js';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { netnsUnavailable } from '../../fixtures/netns.js';
import { peerBinary, requireCapability } from '../../fixtures/peers/require-peer.js';
import { createRouterChain, type RouterChain } from '../../fixtures/peers/router-chain.js';
import { DNSMASQ } from '../../fixtures/peers/dnsmasq.js';
import { startDaemon, waitForPort } from '../../fixtures/peers/daemon.js';
import { freePort, udpListener } from '../../fixtures/peers/net-fixtures.js';
import { runProbe } from './probe-helpers.js';

const isRoot = process.getuid?.() === 0;
const IPTABLES = '/usr/sbin/iptables';
const PROBE_ONCE = path.resolve('test/fixtures/traceroute-probe-once.ts');

/** This process's raw sockets (the ones /proc/net/raw lists that an fd of ours points at). */
function rawSocketsOpen(): number {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/raw', '/proc/net/raw6']) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) inodes.add(line.trim().split(/\s+/)[9]!);
  }
  let open = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match && inodes.has(match[1]!)) open++;
    } catch {
      // closed while listing
    }
  }
  return open;
}

describe('traceroute prober', function () {
  this.timeout(20_000);
  let chain: RouterChain | undefined;

  before(function () {
    requireCapability(this, isRoot ? netnsUnavailable() : 'TRACEROUTE needs root (raw sockets, network namespaces)');
    chain = createRouterChain();
  });
  after(() => chain?.remove());

  /** Runs `test` with `route` added in one namespace of the chain, and removes it after. */
  async function withRoute(where: 'r2' | 't', route: string[], test: () => Promise<void>): Promise<void> {
    chain!.ip(where, 'route', 'add', ...route);
    try {
      await test();
    } finally {
      chain!.ip(where, 'route', 'del', ...route);
    }
  }

  it('is GREEN with the hops in order, the loss and the jitter', async () => {
    const r = await runProbe('TRACEROUTE', chain!.target);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(new RegExp(`^reached ${chain!.target.replaceAll('.', '\\.')} in 3 hops, 0% loss, jitter \\d+(\\.\\d+)? ms$`));
    const hops = r.details.hops as { hop: number; address: string; rtt_ms: number }[];
    expect(hops.map((h) => [h.hop, h.address])).to.deep.equal([
      [1, chain!.r1],
      [2, chain!.r2],
      [3, chain!.target],
    ]);
    for (const hop of hops) expect(hop.rtt_ms).to.be.a('number');
    expect(r.details).to.include({ loss_percent: 0 });
    expect(r.details.jitter_ms).to.be.a('number');
    expect(r.details.rtt_avg_ms).to.be.a('number');
    expect(r.observed).to.include({ hops: 3, reached: true, loss_percent: 0 });
  });

  it('sends options.packets echo requests after at most options.max_hops hops', async () => {
    const one = await runProbe('TRACEROUTE', chain!.target, { packets: 1 });
    expect(one.ok, one.message).to.equal(true);
    expect(one.message, 'no jitter from one echo').to.match(/in 3 hops, 0% loss$/);
    expect(one.details.jitter_ms).to.equal(null);

    const short = await runProbe('TRACEROUTE', chain!.target, { max_hops: 2 });
    expect(short.ok).to.equal(false);
    expect(short.message).to.equal('not reached within 2 hops');
    expect((short.details.hops as unknown[]).length).to.equal(2);
    expect(short.observed).to.deep.equal({ reached: false });
  });

  it('passes and fails assertions on hops, reached, loss_percent and jitter_ms', async () => {
    const passing = [
      { source: 'hops', comparison: 'equals', target: 3 },
      { source: 'reached', comparison: 'equals', target: true },
      { source: 'loss_percent', comparison: 'less_than', target: 1 },
      { source: 'jitter_ms', comparison: 'less_than', target: 1000 },
    ];
    const green = await runProbe('TRACEROUTE', chain!.target, { assertions: passing });
    expect(green.ok, green.message).to.equal(true);
    expect((green.details.assertions as { passed: boolean }[]).every((a) => a.passed)).to.equal(true);

    const red = await runProbe('TRACEROUTE', chain!.target, { assertions: [{ source: 'hops', comparison: 'less_than', target: 3 }] });
    expect(red.ok).to.equal(false);
    expect(red.details.assertions).to.deep.equal([{ source: 'hops', comparison: 'less_than', target: 3, actual: '3', passed: false }]);
  });

  it('is RED naming the hop that answers destination unreachable', async () => {
    await withRoute('r2', ['unreachable', `${chain!.target}/32`], async () => {
      const r = await runProbe('TRACEROUTE', chain!.target);
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`hop 2 (${chain!.r2}) answers: destination unreachable`);
      expect(r.observed).to.deep.equal({ reached: false });
    });
  });

  it('is RED naming the last hop that answered when the rest is silent, and leaves `reached` to an assertion on it', async () => {
    // The target's replies go nowhere: r1 and r2 answer, then nothing.
    await withRoute('t', ['blackhole', `${chain!.r1.replace(/\.\d+$/, '.0')}/30`], async () => {
      const r = await runProbe('TRACEROUTE', chain!.target, {}, 2_000);
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`not reached: no answer after hop 2 (${chain!.r2})`);
      const hops = r.details.hops as { address: string | null }[];
      expect(hops.map((h) => h.address)).to.deep.equal([chain!.r1, chain!.r2, null, null, null]);

      const expectedSilence = await runProbe('TRACEROUTE', chain!.target, { assertions: [{ source: 'reached', comparison: 'equals', target: false }] }, 2_000);
      expect(expectedSilence.ok, expectedSilence.message).to.equal(true);
    });
  });

  it('is RED with 100% loss when the target answers the trace but no echo after it', async function () {
    peerBinary(IPTABLES, 'iptables', this);
    // The trace's last request arrives with TTL 1; the echoes after it, sent with the default TTL, are dropped.
    const rule = ['INPUT', '-p', 'icmp', '--icmp-type', 'echo-request', '-m', 'ttl', '--ttl-gt', '1', '-j', 'DROP'];
    chain!.exec('t', IPTABLES, ['-A', ...rule]);
    try {
      const r = await runProbe('TRACEROUTE', chain!.target, { packets: 2 }, 2_000);
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`reached ${chain!.target} in 3 hops, but all 2 echo requests were lost (100% loss)`);
      expect(r.observed).to.include({ hops: 3, reached: true, loss_percent: 100 });
      expect(r.observed).to.not.have.property('jitter_ms');

      const judged = await runProbe('TRACEROUTE', chain!.target, { packets: 2, assertions: [{ source: 'loss_percent', comparison: 'less_than', target: 50 }] }, 2_000);
      expect(judged.ok).to.equal(false);
      expect(judged.details.assertions).to.deep.equal([{ source: 'loss_percent', comparison: 'less_than', target: 50, actual: '100', passed: false }]);
    } finally {
      chain!.exec('t', IPTABLES, ['-D', ...rule]);
    }
  });

  it('ends at the abort, leaving no raw socket open', async () => {
    await withRoute('t', ['blackhole', `${chain!.r1.replace(/\.\d+$/, '.0')}/30`], async () => {
      const probe = tracerouteProber().prepare({ checkType: 'TRACEROUTE', endpoint: chain!.target, timeoutMs: 5_000, options: {} });
      const signal = new DeadlineSignal();
      const pending = probe(signal);
      setTimeout(() => signal.abort(), 300);
      const r = await pending;
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('timed out after 5000 ms');
      expect((r.details.hops as { address: string | null }[]).map((h) => h.address).slice(0, 2)).to.deep.equal([chain!.r1, chain!.r2]);
      expect(rawSocketsOpen()).to.equal(0);
    });
  });

  it('names the hops by reverse DNS with ptr_lookup', async function () {
    peerBinary(DNSMASQ, 'dnsmasq-base', this);
    const ptr = await startPtrServer(`--ptr-record=${reverseName(chain!.r2)},r2.outpost.test`);
    const servers = dns.getServers();
    dns.setServers([ptr.resolver]);
    try {
      const r = await runProbe('TRACEROUTE', chain!.target, { ptr_lookup: true });
      expect(r.ok, r.message).to.equal(true);
      const hops = r.details.hops as { address: string; name?: string }[];
      expect(hops[1]).to.include({ address: chain!.r2, name: 'r2.outpost.test' });
      expect(hops[0], 'no name for a hop without PTR').to.not.have.property('name');
    } finally {
      dns.setServers(servers);
      await ptr.stop();
    }
  });

  it('gives up on names from a silent resolver before the timeout', async () => {
    const silent = await udpListener();
    const servers = dns.getServers();
    dns.setServers([silent.endpoint]);
    try {
      const r = await runProbe('TRACEROUTE', chain!.target, { ptr_lookup: true }, 2_000);
      expect(r.ok, r.message).to.equal(true);
      expect(silent.received()).to.be.greaterThan(0);
      for (const hop of r.details.hops as object[]) expect(hop).to.not.have.property('name');
    } finally {
      dns.setServers(servers);
      await silent.close();
    }
  });

  it('is RED when the name does not resolve', () => {
    // In r1, which has no route to any resolver: the lookup fails without leaving the chain.
    const r = JSON.parse(chain!.exec('r1', process.execPath, ['--import', 'tsx', PROBE_ONCE, 'nowhere.outpost.test'])) as { ok: boolean; message: string };
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('DNS lookup failed (temporary)');
  });

  it('says it needs root or CAP_NET_RAW when it has neither', function () {
    peerBinary('/usr/bin/setpriv', 'util-linux', this);
    const out = execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', process.execPath, '--import', 'tsx', PROBE_ONCE, chain!.target], {
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    const r = JSON.parse(out) as { ok: boolean; message: string };
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^TRACEROUTE needs root or CAP_NET_RAW \(raw socket: .+\)$/);
  });
});

describe('traceroute options', () => {
  it('takes max_hops, packets and ptr_lookup within their bounds', () => {
    const options = { max_hops: 16, packets: 10, ptr_lookup: true };
    expect(parseCheckOptions('TRACEROUTE', options)).to.deep.equal({ ok: true, options });
    for (const bad of [{ max_hops: 0 }, { max_hops: 65 }, { packets: 0 }, { packets: 21 }, { packets: 1.5 }, { ptr_lookup: 'yes' }, { port: 33434 }]) {
      expect(parseCheckOptions('TRACEROUTE', bad).ok, JSON.stringify(bad)).to.equal(false);
    }
  });

  it('offers hops, loss_percent, jitter_ms and reached to assertions, and nothing of other families', () => {
    expect(parseCheckOptions('TRACEROUTE', { assertions: [{ source: 'loss_percent', comparison: 'less_than', target: 5 }] }).ok).to.equal(true);
    expect(parseCheckOptions('TRACEROUTE', { assertions: [{ source: 'status', comparison: 'equals', target: 200 }] }).ok).to.equal(false);
  });
});

/** 10.253.1.6 -> 6.1.253.10.in-addr.arpa */
function reverseName(address: string): string {
  return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
}

/** dnsmasq answering the given PTR record on a free loopback port, NXDOMAIN for other private addresses. */
async function startPtrServer(record: string): Promise<{ resolver: string; stop(): Promise<void> }> {
  const port = await freePort();
  const daemon = startDaemon(DNSMASQ, ['--keep-in-foreground', '--log-facility=-', `--port=${port}`, '--listen-address=127.0.0.1', '--bind-interfaces', '--no-resolv', '--no-hosts', '--bogus-priv', '--conf-file=/dev/null', '--user=root', record]);
  await waitForPort(port, daemon);
  return { resolver: `127.0.0.1:${port}`, stop: () => daemon.stop() };
}
