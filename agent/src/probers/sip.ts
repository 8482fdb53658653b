// SIP: an OPTIONS request (RFC 3261 section 11) to the endpoint's URI, over UDP (retransmitted
// until an answer comes) or TCP. Provisional (1xx) responses are skipped; the final response's
// status decides: 2xx passes. The status is the `status` source; with an assertion on it, the
// assertion alone judges it (a registrar that answers 404 to OPTIONS may be what is expected).
//
// Written by hand: no maintained Node SIP client speaks SIP over UDP or TCP. SIP.js and JsSIP
// are user agents for browsers over WebSocket, `sip` (0.0.6) is long unmaintained, and
// drachtio-srf needs a drachtio server; one OPTIONS transaction is a page of code.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import net, { isIP } from 'node:net';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { parseSipUri, type SipUri } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { ProbeDetails, Prober, ProbeResult, ProbeTarget } from './prober.js';

/** RFC 3261 timers: a non-INVITE request is sent again after T1, doubling up to T2 (timer E, section 17.1.2.2). */
const T1_MS = 500;
const T2_MS = 4_000;
/** A response's headers larger than this are not a SIP server's answer to OPTIONS. */
const MAX_HEADER_BYTES = 65_536;
const SIP_VERSION = 'SIP/2.0 ';
const HEADER_END = Buffer.from('\r\n\r\n');
const BRANCH_PARAM = /;\s*branch=([^;,\s]+)/i;
const STATUS_LINE = /^SIP\/2\.0 (\d{3})(?: (.*))?$/;
const LINE_BREAK = /\r?\n/;
const OPTIONS_CSEQ = /^1\s+OPTIONS$/i;
/** Compact header names (RFC 3261 section 7.3.3) of the headers read here. */
const COMPACT_NAMES: Record<string, string> = { i: 'call-id', v: 'via', l: 'content-length' };

export function sipProber(): Prober<'SIP'> {
  return {
    family: 'SIP',
    prepare: (target) => {
      const uri = parseSipUri(target.endpoint);
      if (!uri) return async () => ({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const check: SipCheck = { target, uri, request: requestTemplate(target.endpoint, uri), statusAsserted: assertsOn(target.options.assertions, 'status') };
      return uri.transport === 'udp' ? (signal) => optionsOverUdp(check, signal) : (signal) => optionsOverTcp(check, signal);
    },
  };
}

interface SipCheck {
  target: ProbeTarget<'SIP'>;
  uri: SipUri;
  request: RequestTemplate;
  statusAsserted: boolean;
}

/** The fixed text of the OPTIONS request, around the parts each check fills in (local address, branch, tag, Call-ID). */
interface RequestTemplate {
  requestLine: string;
  afterBranch: string;
  afterCallId: string;
  contactTransport: string;
}

function requestTemplate(endpoint: string, uri: SipUri): RequestTemplate {
  // The URI without its parameters: the transport is how it is reached, not part of the target.
  const requestUri = endpoint.split(';', 1)[0]!;
  return {
    requestLine: `OPTIONS ${requestUri} SIP/2.0\r\nVia: SIP/2.0/${uri.transport.toUpperCase()} `,
    afterBranch: `\r\nMax-Forwards: 70\r\nTo: <${requestUri}>\r\nFrom: <sip:outpost@`,
    afterCallId: '\r\nCSeq: 1 OPTIONS\r\nContact: <sip:outpost@',
    contactTransport: `;transport=${uri.transport}>\r\nAccept: application/sdp\r\nUser-Agent: outpost\r\nContent-Length: 0\r\n\r\n`,
  };
}

/** What makes one check's request its own: the responses are matched on these. */
interface Transaction {
  branch: string;
  callId: string;
  text: string;
}

function newTransaction(t: RequestTemplate, localAddress: string, localPort: number): Transaction {
  const id = randomBytes(12).toString('hex');
  const branch = `z9hG4bK${id.slice(0, 16)}`;
  const callId = `${id}@outpost`;
  const host = isIP(localAddress) === 6 ? `[${localAddress}]` : localAddress;
  const sentBy = `${host}:${localPort}`;
  const text = `${t.requestLine}${sentBy};rport;branch=${branch}${t.afterBranch}${host}>;tag=${id.slice(16)}\r\nCall-ID: ${callId}${t.afterCallId}${sentBy}${t.contactTransport}`;
  return { branch, callId, text };
}

interface SipResponse {
  status: number;
  reason: string;
  /** Lower-case full names; a repeated header keeps its first value (the top Via). */
  headers: Map<string, string>;
}

/** A response's status line and headers; null when the text is not a SIP response. */
function parseResponse(head: string): SipResponse | null {
  const lines = head.split(LINE_BREAK);
  const status = STATUS_LINE.exec(lines[0]!);
  if (!status) return null;
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') break;
    // A line starting with white space continues the header before it (folding).
    if ((line[0] === ' ' || line[0] === '\t') && last !== undefined) {
      headers.set(last, `${headers.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const raw = line.slice(0, colon).trim().toLowerCase();
    const name = COMPACT_NAMES[raw] ?? raw;
    if (headers.has(name)) {
      last = undefined;
      continue;
    }
    headers.set(name, line.slice(colon + 1).trim());
    last = name;
  }
  return { status: Number(status[1]), reason: (status[2] ?? '').slice(0, 80), headers };
}

/** The response answers this check's request (not an earlier check's, retransmitted late). */
function answers(response: SipResponse, tx: Transaction): boolean {
  if (response.headers.get('call-id') !== tx.callId) return false;
  if (!OPTIONS_CSEQ.test(response.headers.get('cseq') ?? '')) return false;
  const topVia = response.headers.get('via')?.split(',', 1)[0] ?? '';
  return BRANCH_PARAM.exec(topVia)?.[1] === tx.branch;
}

function finalResult(check: SipCheck, response: SipResponse, responseMs: number, responseTimeMs: number, details: ProbeDetails): ProbeResult {
  const { status, reason, headers } = response;
  details.response_ms = responseMs;
  const server = headers.get('server') ?? headers.get('user-agent');
  if (server !== undefined) details.server = server;
  const allow = headers.get('allow');
  if (allow !== undefined) details.allow = allow;
  const passed = status >= 200 && status < 300;
  const ok = passed || check.statusAsserted;
  const message = ok ? `SIP ${status} ${reason} in ${Math.round(responseMs)} ms` : `SIP ${status} ${reason}`;
  return { ok, responseTimeMs, message, details, observed: { status } };
}

const roundMs = (ms: number) => Math.round(ms * 100) / 100;

async function optionsOverUdp(check: SipCheck, signal: ProbeSignal): Promise<ProbeResult> {
  const { target, uri } = check;
  const started = performance.now();
  const elapsed = () => roundMs(performance.now() - started);
  const details: ProbeDetails = {};
  const fail = (message: string): ProbeResult => ({ ok: false, responseTimeMs: Math.round(elapsed()), message, details });
  let address = uri.host;
  let family = isIP(uri.host);
  if (family === 0) {
    try {
      ({ address, family } = await abortable(lookup(uri.host), signal));
      details.dns_ms = elapsed();
    } catch (err) {
      return fail(signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err));
    }
  }
  const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
  return new Promise<ProbeResult>((resolve) => {
    let tx: Transaction | undefined;
    let sentAt = 0;
    let retransmissions = 0;
    let interval = T1_MS;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.close();
      resolve(result);
    };
    const onAbort = () => finish(fail(`timed out after ${target.timeoutMs} ms`));
    const send = () => {
      socket.send(tx!.text);
      timer = setTimeout(retransmit, interval);
      interval = Math.min(interval * 2, T2_MS);
    };
    const retransmit = () => {
      retransmissions++;
      details.retransmissions = retransmissions;
      send();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // A connected socket hears the ICMP "port unreachable" of a closed port, as ECONNREFUSED.
    socket.on('error', (err) => finish(fail(describeNetworkError(err))));
    socket.on('message', (datagram) => {
      const response = datagram.subarray(0, SIP_VERSION.length).toString('latin1') === SIP_VERSION ? parseResponse(datagram.toString('utf8')) : null;
      if (!response) return finish(fail('not a SIP response'));
      if (!answers(response, tx!)) return;
      if (response.status < 200) {
        // Proceeding: the server has the request; it is sent again every T2 until the final response.
        clearTimeout(timer);
        interval = T2_MS;
        timer = setTimeout(retransmit, interval);
        return;
      }
      finish(finalResult(check, response, roundMs(elapsed() - sentAt), Math.round(elapsed()), details));
    });
    socket.connect(uri.port, address, () => {
      if (settled) return;
      const local = socket.address();
      tx = newTransaction(check.request, local.address, local.port);
      details.retransmissions = 0;
      sentAt = elapsed();
      send();
    });
  });
}

function optionsOverTcp(check: SipCheck, signal: ProbeSignal): Promise<ProbeResult> {
  const { target, uri } = check;
  const started = performance.now();
  const elapsed = () => roundMs(performance.now() - started);
  const details: ProbeDetails = {};
  const fail = (message: string): ProbeResult => ({ ok: false, responseTimeMs: Math.round(elapsed()), message, details });
  const socket = net.connect({ host: uri.host, port: uri.port });
  return new Promise<ProbeResult>((resolve) => {
    let tx: Transaction | undefined;
    let sentAt = 0;
    let buffer: Buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = () => finish(fail(`timed out after ${target.timeoutMs} ms`));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('lookup', () => (details.dns_ms = elapsed()));
    socket.once('connect', () => {
      details.connect_ms = roundMs(elapsed() - ((details.dns_ms as number | undefined) ?? 0));
      tx = newTransaction(check.request, socket.localAddress!, socket.localPort!);
      sentAt = elapsed();
      socket.write(tx.text);
    });
    socket.on('error', (err) => finish(fail(describeNetworkError(err))));
    socket.on('close', () => finish(fail('the server closed the connection before a final response')));
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        // CRLFs between messages are keep-alives (RFC 5626 section 3.5.1).
        let start = 0;
        while (buffer[start] === 0x0d || buffer[start] === 0x0a) start++;
        buffer = buffer.subarray(start);
        const prefix = buffer.subarray(0, SIP_VERSION.length).toString('latin1');
        if (!SIP_VERSION.startsWith(prefix)) return finish(fail('not a SIP response'));
        const headEnd = buffer.indexOf(HEADER_END);
        if (headEnd < 0) {
          if (buffer.length > MAX_HEADER_BYTES) finish(fail('not a SIP response (headers too long)'));
          return;
        }
        const response = parseResponse(buffer.subarray(0, headEnd).toString('utf8'));
        if (!response) return finish(fail('not a SIP response'));
        // Over a stream, Content-Length is where the next message starts (RFC 3261 section 18.3).
        const messageEnd = headEnd + HEADER_END.length + (Number(response.headers.get('content-length')) || 0);
        if (buffer.length < messageEnd) return;
        buffer = buffer.subarray(messageEnd);
        if (response.status >= 200 && answers(response, tx!)) return finish(finalResult(check, response, roundMs(elapsed() - sentAt), Math.round(elapsed()), details));
      }
    });
  });
}
