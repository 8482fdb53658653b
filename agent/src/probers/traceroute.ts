// TRACEROUTE: the route to a host, hop by hop (ICMP echo requests with a growing TTL, as
// `traceroute -I` sends them, through net-ping's raw socket), then options.packets echo
// requests to the host for its loss and jitter. Raw sockets need root or CAP_NET_RAW; without
// either the result says so instead of a bare EPERM.
import dns, { lookup, Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { describeNetworkError } from './network-errors.js';
import { nextIcmpSessionId } from './icmp-session-id.js';
import type { DetailValue, Observed, Prober, ProbeDetails, ProbeResult } from './prober.js';

type Feed = (err: (Error & { source?: string }) | null, target: string, ttl: number) => boolean;
interface PingSession {
  traceRoute(target: string, options: { ttl: number; maxHopTimeouts: number }, feed: Feed, done: (err: Error | null) => void): void;
  pingHost(target: string, done: (err: (Error & { source?: string }) | null) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): void;
}
interface NetPing {
  createSession(options: { networkProtocol: number; timeout: number; retries: number; sessionId: number }): PingSession;
  NetworkProtocol: { IPv4: number; IPv6: number };
}

const DEFAULT_MAX_HOPS = 30;
const DEFAULT_PACKETS = 5;
/** Silent hops the trace crosses before it gives up: a firewall dropping ICMP past some hop ends it. */
const MAX_HOP_TIMEOUTS = 3;
const MAX_WAIT_MS = 1000;
/** The share of the time left that reverse lookups may take. */
const NAMES_SHARE = 0.8;

const require = createRequire(import.meta.url);
// Loaded on first use: the native raw-socket add-on is needed only by checks that send ICMP.
let netPing: NetPing | undefined;

interface Hop {
  hop: number;
  address: string | null;
  name?: string;
  rtt_ms: number | null;
}

/** How the trace ended short of the target, when it did. */
type Stop = { kind: 'unreachable'; hop: Hop } | { kind: 'silent' } | { kind: 'max-hops' } | { kind: 'error'; message: string };

interface Echoes {
  lost: number;
  rtts: number[];
}

export function tracerouteProber(): Prober<'TRACEROUTE'> {
  return {
    family: 'TRACEROUTE',
    prepare: (target) => {
      const host = withoutBrackets(target.endpoint);
      const o = target.options;
      const maxHops = o.max_hops ?? DEFAULT_MAX_HOPS;
      const packets = o.packets ?? DEFAULT_PACKETS;
      // Every silent hop and every lost echo waits this long: their worst case still fits in the
      // check's timeout (answering hops come back well within it), and the abort ends the rest.
      const waitMs = Math.max(1, Math.min(MAX_WAIT_MS, Math.floor(target.timeoutMs / (MAX_HOP_TIMEOUTS + packets + 1))));
      const judged = { reached: assertsOn(o.assertions, 'reached'), loss: assertsOn(o.assertions, 'loss_percent') };
      const timedOut = `timed out after ${target.timeoutMs} ms`;

      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        const elapsed = () => Math.round(performance.now() - started);
        let address: { address: string; family: number };
        try {
          address = isIP(host) ? { address: host, family: isIP(host) } : await abortable(lookup(host), signal);
        } catch (err) {
          return { ok: false, responseTimeMs: elapsed(), message: signal.aborted ? timedOut : describeNetworkError(err), details: {} };
        }
        const session = openSession(address.family, waitMs);
        if (typeof session === 'string') return { ok: false, responseTimeMs: elapsed(), message: session, details: {} };

        const hops: Hop[] = [];
        const run = new TraceRun(session.session, address.address);
        const traceStarted = performance.now();
        try {
          const stop = await abortable(run.trace(maxHops, hops), signal);
          const traceMs = Math.round(performance.now() - traceStarted);
          if (stop) return { ok: judged.reached, responseTimeMs: elapsed(), message: notReached(stop, hops, maxHops), details: { hops: hopDetails(hops), trace_ms: traceMs }, observed: { reached: false } };
          const deadline = started + target.timeoutMs;
          const [echoes] = await abortable(Promise.all([run.echoes(packets), o.ptr_lookup ? run.names(hops, deadline) : undefined]), signal);
          return summary(address.address, hops, echoes, packets, traceMs, elapsed(), judged.loss);
        } catch (err) {
          return { ok: false, responseTimeMs: elapsed(), message: signal.aborted ? timedOut : describeNetworkError(err), details: { hops: hopDetails(hops) } };
        } finally {
          run.close();
        }
      };
    },
  };
}

function openSession(family: number, waitMs: number): { session: PingSession } | string {
  netPing ??= require('net-ping') as NetPing;
  try {
    const networkProtocol = family === 6 ? netPing.NetworkProtocol.IPv6 : netPing.NetworkProtocol.IPv4;
    return { session: netPing.createSession({ networkProtocol, timeout: waitMs, retries: 0, sessionId: nextIcmpSessionId() }) };
  } catch (err) {
    const reason = (err as Error).message;
    return /not permitted|EPERM|EACCES/i.test(reason) ? `TRACEROUTE needs root or CAP_NET_RAW (raw socket: ${reason})` : `TRACEROUTE: ${reason}`;
  }
}

/** One check's exchanges on its session; once closed, nothing more is sent (net-ping would open a new socket). */
class TraceRun {
  private closed = false;
  private socketError: Error | undefined;
  private resolver: Resolver | undefined;

  constructor(
    private readonly session: PingSession,
    private readonly address: string,
  ) {
    session.on('error', (err) => (this.socketError ??= err));
  }

  /** Fills `hops`; resolves with why the trace stopped short, or undefined once the target answered. */
  trace(maxHops: number, hops: Hop[]): Promise<Stop | undefined> {
    return new Promise((resolve) => {
      let stop: Stop | undefined;
      let reached = false;
      // net-ping's times are Dates (whole milliseconds). It sends the next hop's request as soon
      // as this callback returns, so a hop's round trip is the time since the previous callback.
      let sent = performance.now();
      const feed: Feed = (err, _target, ttl) => {
        const now = performance.now();
        const rtt = Math.round((now - sent) * 100) / 100;
        sent = now;
        if (this.closed) return true;
        if (err === null) {
          reached = true;
          hops.push({ hop: ttl, address: this.address, rtt_ms: rtt });
        } else if (err.name === 'TimeExceededError') {
          hops.push({ hop: ttl, address: err.source ?? null, rtt_ms: rtt });
        } else if (err.name === 'RequestTimedOutError') {
          hops.push({ hop: ttl, address: null, rtt_ms: null });
        } else if (err.name === 'DestinationUnreachableError') {
          const hop = { hop: ttl, address: err.source ?? null, rtt_ms: rtt };
          hops.push(hop);
          stop = { kind: 'unreachable', hop };
          return true;
        } else {
          stop = { kind: 'error', message: describeNetworkError(this.socketError ?? err) };
          return true;
        }
        return false;
      };
      this.session.traceRoute(this.address, { ttl: maxHops, maxHopTimeouts: MAX_HOP_TIMEOUTS }, feed, (err) => {
        if (reached) return resolve(undefined);
        if (stop) return resolve(stop);
        resolve(err?.name === 'TimeExceededError' ? { kind: 'max-hops' } : { kind: 'silent' });
      });
    });
  }

  /** Echo requests one after the other (jitter compares consecutive round trips). */
  async echoes(packets: number): Promise<Echoes> {
    const result: Echoes = { lost: 0, rtts: [] };
    for (let i = 0; i < packets && !this.closed; i++) {
      const rtt = await this.echo();
      if (rtt === undefined) result.lost++;
      else result.rtts.push(rtt);
    }
    return result;
  }

  private echo(): Promise<number | undefined> {
    const sent = performance.now();
    return new Promise((resolve) => this.session.pingHost(this.address, (err) => resolve(err ? undefined : Math.round((performance.now() - sent) * 100) / 100)));
  }

  /**
   * Each answering hop's name (reverse DNS), when it comes within most of the time left; none
   * when it fails. The rest of the time is the result's: a silent resolver must not time the check out.
   */
  async names(hops: Hop[], deadline: number): Promise<void> {
    const budgetMs = Math.max(1, Math.floor((deadline - performance.now()) * NAMES_SHARE));
    const resolver = (this.resolver = new Resolver({ timeout: budgetMs, tries: 1 }));
    // The agent's resolvers (called on the module: its getServers needs it as `this`).
    resolver.setServers(dns.getServers());
    const giveUp = setTimeout(() => resolver.cancel(), budgetMs);
    await Promise.all(
      hops.map(async (hop) => {
        if (hop.address === null) return;
        const names = await resolver.reverse(hop.address).catch(() => []);
        if (names[0] !== undefined) hop.name = names[0];
      }),
    );
    clearTimeout(giveUp);
  }

  close(): void {
    this.closed = true;
    this.resolver?.cancel();
    this.session.close();
  }
}

function notReached(stop: Stop, hops: Hop[], maxHops: number): string {
  switch (stop.kind) {
    case 'unreachable':
      return `hop ${stop.hop.hop} (${stop.hop.address}) answers: destination unreachable`;
    case 'max-hops':
      return `not reached within ${maxHops} hops`;
    case 'error':
      return stop.message;
    case 'silent': {
      const last = hops.findLast((h) => h.address !== null);
      return last ? `not reached: no answer after hop ${last.hop} (${last.address})` : 'not reached: no hop answered';
    }
  }
}

function summary(address: string, hops: Hop[], echoes: Echoes, packets: number, traceMs: number, responseTimeMs: number, lossJudged: boolean): ProbeResult {
  const loss = Math.round((echoes.lost / packets) * 1000) / 10;
  const jitter = jitterOf(echoes.rtts);
  const average = echoes.rtts.length === 0 ? null : round2(echoes.rtts.reduce((a, b) => a + b, 0) / echoes.rtts.length);
  const observed: Observed = { hops: hops.length, reached: true, loss_percent: loss };
  if (jitter !== undefined) observed.jitter_ms = jitter;
  const details: ProbeDetails = { hops: hopDetails(hops), trace_ms: traceMs, loss_percent: loss, jitter_ms: jitter ?? null, rtt_avg_ms: average };
  const reached = `reached ${address} in ${hops.length} hop${hops.length === 1 ? '' : 's'}`;
  if (echoes.rtts.length === 0) return { ok: lossJudged, responseTimeMs, message: `${reached}, but all ${packets} echo requests were lost (100% loss)`, details, observed };
  return { ok: true, responseTimeMs, message: `${reached}, ${loss}% loss${jitter === undefined ? '' : `, jitter ${jitter} ms`}`, details, observed };
}

/** The mean absolute difference of consecutive round trips; none with fewer than two. */
function jitterOf(rtts: number[]): number | undefined {
  if (rtts.length < 2) return undefined;
  let sum = 0;
  for (let i = 1; i < rtts.length; i++) sum += Math.abs(rtts[i]! - rtts[i - 1]!);
  return round2(sum / (rtts.length - 1));
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function hopDetails(hops: Hop[]): DetailValue {
  return hops.map((h) => {
    const hop: Record<string, DetailValue> = { hop: h.hop, address: h.address };
    if (h.name !== undefined) hop.name = h.name;
    hop.rtt_ms = h.rtt_ms;
    return hop;
  });
}
