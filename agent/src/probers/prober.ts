// The one interface every protocol prober implements (STYLE.md rule 10). A failed probe is
// data, never an exception: a probe resolves with ok=false and a short human message.
import type { CheckOptions } from '../../../shared/src/check-options.js';
import type { CheckFamily, CheckType } from '../../../shared/src/check-types.js';
import type { ProbeSignal } from './probe-signal.js';

export interface ProbeTarget<F extends CheckFamily = CheckFamily> {
  checkType: CheckType;
  endpoint: string;
  /** Hard limit for the whole check, DNS included. */
  timeoutMs: number;
  /** The options of the check's family, already validated by the control plane. */
  options: CheckOptions<F>;
}

export type DetailValue = string | number | boolean | null | DetailValue[] | { [key: string]: DetailValue };

/** Phase timings (milliseconds, only the phases measured) and facts about the target. */
export type ProbeDetails = Record<string, DetailValue>;

export interface ProbeResult {
  ok: boolean;
  /** Passed, but the target is degraded (YELLOW whatever the response time). */
  degraded?: boolean;
  responseTimeMs: number;
  /** Short and human: "HTTP 200 in 85 ms", "connection refused". */
  message: string;
  details: ProbeDetails;
  /** What answered, for options.assertions; set by a probe that got an answer to judge. */
  observed?: Observed;
}

/**
 * The values of the assertion sources (shared/src/assertions.ts) a family offers, as its
 * probe saw them; response_time_ms is the result's own. A source left out yields nothing.
 */
export interface Observed {
  /** HTTP status code, WebSocket upgrade status, or gRPC health status name. */
  status?: number | string;
  /** Lower-case names. */
  headers?: Record<string, string>;
  /** The decoded body (HTTP), or what a TCP conversation read back. */
  body?: string;
  /** DNS answers, each as text, and the response code (NOERROR, NXDOMAIN, ...). */
  answers?: string[];
  rcode?: string;
  /** A database's answer: the first column of the first row, or a MongoDB command's reply. */
  result?: unknown;
  /** What the server said first (SMTP, IMAP, FTP, SSH). */
  banner?: string;
  tls_days_remaining?: number;
  /** SNMP: each asked OID (without a leading dot) and its value; a number for the numeric types. */
  oids?: Record<string, string | number>;
  /** NTP: the clock's offset from the server (ms, positive when the server is ahead) and the server's stratum. */
  offset_ms?: number;
  stratum?: number;
  /** UDP: the datagram that came back, as hex (`body` holds it as text). */
  body_hex?: string;
  /** LDAP: how many entries the search found, and the attributes of the first (lower-case names). */
  entries?: number;
  attributes?: Record<string, string[]>;
  /** RADIUS: the reply's name (Access-Accept, Access-Reject, Access-Challenge). */
  code?: string;
  /** MQTT, NATS: the message received (its `json` source parses it). */
  message?: string;
  /** AMQP: the queue's counts from its passive declare. */
  message_count?: number;
  consumer_count?: number;
  /** DOCKER: the container's state (running, exited, ...), health (healthy, unhealthy, starting, none) and restarts. */
  state?: string;
  health?: string;
  restart_count?: number;
  /** TRACEROUTE: hops to the target, the echoes lost, their jitter, and whether the target answered. */
  hops?: number;
  loss_percent?: number;
  jitter_ms?: number;
  reached?: boolean;
  /** DOMAIN: whole days until the registration expires (negative once expired). */
  days_remaining?: number;
}

/** One target's check, ready to run: resolves (never rejects) before or when `signal` aborts at the check's timeout. */
export type Probe = (signal: ProbeSignal) => Promise<ProbeResult>;

export interface Prober<F extends CheckFamily = CheckFamily> {
  readonly family: F;
  /**
   * Called once per assignment, whose checks all run the probe it returns: what the target
   * alone decides (a parsed endpoint, an encoded request) is worked out here, not on every check.
   */
  prepare(target: ProbeTarget<F>): Probe;
}
