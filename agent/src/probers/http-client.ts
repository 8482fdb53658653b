// The HTTP client of the HTTP and MULTISTEP checks: one exchange per call, over a new
// connection closed after it, on one of two paths (ADR 0014). The hand-written HTTP/1.1 path
// (http-request.ts) takes every exchange that needs no more, and is the one P1 measures; HTTP/2,
// ALPN's choice ("auto" over TLS) and proxies go through undici (undici-exchange.ts), loaded
// on first use. Either way the body comes back decoded and the Authorization set here.
import tls from 'node:tls';
import type { CheckOptions } from '../../../shared/src/check-options.js';
import { clientTls, type ClientTls } from './client-tls.js';
import { decodeBody } from './decode-body.js';
import { proxyResolver, type ProxyResolver } from './http-proxy.js';
import { checkFields, httpRequest, prepareRequest, type ExchangeSettings, type HttpExchange, type PreparedRequest, type ReadExchange, type RequestFields } from './http-request.js';
import { createTokenCache, type TokenCache } from './oauth2-token-cache.js';
import type { ProbeSignal } from './probe-signal.js';

export interface ClientRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpClient {
  /** Rejects when no response came; a request object given again is sent as encoded the first time. */
  exchange(request: ClientRequest, signal: ProbeSignal): Promise<HttpExchange>;
}

/** How a check reaches its target and proves itself (WEBSOCKET takes these too). */
export type ConnectionOptions = Pick<CheckOptions<'WEBSOCKET'>, 'verify_tls' | 'proxy' | 'bearer_token' | 'oauth2' | 'client_certificate' | 'client_key' | 'ca_certificate'>;
export type HttpClientOptions = ConnectionOptions & Pick<CheckOptions<'HTTP'>, 'http_version'>;
type HttpVersion = NonNullable<HttpClientOptions['http_version']>;

export interface HttpClientSettings {
  maxBodyBytes: number;
  /** Where oauth2 tokens are kept; a prober passes one for all its targets, so that they share a grant's token. */
  tokens?: TokenCache;
}

const ACCEPT_ENCODING = 'gzip, deflate, br';
/** A token endpoint's answer is a small JSON document. */
const TOKEN_BODY_BYTES = 64 * 1024;

// Loaded once, on the first exchange that needs it: an agent whose checks take the hand-written
// path never loads undici. The promise is kept: import() of a loaded module still costs a turn
// through the module loader on every call.
let undici: Promise<typeof import('./undici-exchange.js')> | undefined;
const loadUndici = () => (undici ??= import('./undici-exchange.js'));

export function createHttpClient(options: HttpClientOptions, settings: HttpClientSettings): HttpClient {
  const version: HttpVersion = options.http_version ?? '1.1';
  const setup = connectionSetup(options, settings.maxBodyBytes);
  // A PEM or a proxy that cannot be used fails every exchange, with the option named.
  if (setup instanceof Error) return { exchange: () => Promise.reject(setup) };
  const authorize = clientAuthorization(options, settings.tokens ?? createTokenCache());
  // Requests sent on the hand-written path, encoded: a target's first request is the same object
  // on every check, which then goes straight to the socket (P1 measures that path).
  const encoded = new WeakMap<ClientRequest, { authorization: string | undefined; prepared: PreparedRequest }>();

  const decoded = (read: ReadExchange): HttpExchange | Promise<HttpExchange> => {
    const coding = read.headers['content-encoding'];
    if (coding === undefined || read.body.length === 0) return withText(read, read.body, read.bodyTruncated);
    return decodeBody(read.body, coding, settings.maxBodyBytes).then((body) => withText(read, body.body, read.bodyTruncated || body.truncated));
  };
  const explained = (err: unknown): never => {
    throw refusedProtocol(err, version) ?? err;
  };

  const route = async (request: ClientRequest, authorization: string | undefined, signal: ProbeSignal): Promise<ReadExchange> => {
    const { url } = request;
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported protocol "${url.protocol}"`);
    const proxy = setup.proxies(url);
    if (!proxy && (version === '1.1' || (version === 'auto' && url.protocol === 'http:'))) {
      const prepared = prepareRequest(url, requestFields(request, authorization));
      encoded.set(request, { authorization, prepared });
      return httpRequest(prepared, setup.wire, signal);
    }
    const fields = requestFields(request, authorization);
    checkFields(fields.method, fields.headers);
    const { undiciExchange } = await loadUndici();
    return undiciExchange(url, fields, { version, tls: setup.tls, proxy, maxBodyBytes: settings.maxBodyBytes }, signal);
  };

  const send = (request: ClientRequest, authorization: string | undefined, signal: ProbeSignal): Promise<HttpExchange> => {
    const known = encoded.get(request);
    const read = known !== undefined && known.authorization === authorization ? httpRequest(known.prepared, setup.wire, signal) : route(request, authorization, signal);
    return read.then(decoded, explained);
  };

  return {
    exchange(request, signal) {
      if (typeof authorize === 'function') return authorize(signal).then((authorization) => send(request, authorization, signal));
      return send(request, authorize, signal);
    },
  };
}

interface ConnectionSetup {
  tls: ClientTls;
  proxies: ProxyResolver;
  /** The hand-written path's settings, the same object on every exchange. */
  wire: ExchangeSettings;
}

function connectionSetup(options: HttpClientOptions, maxBodyBytes: number): ConnectionSetup | Error {
  try {
    const connection = clientTls(options);
    return { tls: connection, proxies: proxyResolver(options.proxy), wire: { tls: connection, maxBodyBytes } };
  } catch (err) {
    return err as Error;
  }
}

/** The Authorization bearer_token or oauth2 sets (bearer_token when both are), or none. */
export function clientAuthorization(options: ConnectionOptions, tokens: TokenCache): string | ((signal: ProbeSignal) => Promise<string>) | undefined {
  if (options.bearer_token !== undefined) return `Bearer ${options.bearer_token}`;
  const grant = options.oauth2;
  if (grant === undefined) return undefined;
  let tokenClient: HttpClient | undefined;
  return async (signal) => {
    tokenClient ??= createHttpClient(tokenEndpointOptions(options), { maxBodyBytes: TOKEN_BODY_BYTES });
    return `Bearer ${await tokens.token(grant, tokenClient, signal)}`;
  };
}

/**
 * The token endpoint is reached as the target is (proxy, verify_tls, client certificate), and
 * trusted on the system roots as well as ca_certificate: a private service's CA rarely signs
 * its identity provider's certificate, nor the other way round.
 */
function tokenEndpointOptions(options: ConnectionOptions): HttpClientOptions {
  const { verify_tls, proxy, client_certificate, client_key, ca_certificate } = options;
  return { verify_tls, proxy, client_certificate, client_key, ca_certificate: ca_certificate && `${tls.rootCertificates.join('\n')}\n${ca_certificate}` };
}

/** The request's headers: the user's, over User-Agent, Accept-Encoding and Authorization (bearer, oauth2, or the URL's user). */
function requestFields(request: ClientRequest, authorization: string | undefined): RequestFields {
  const given = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  if (!given.has('user-agent')) headers['User-Agent'] = 'outpost-agent';
  if (!given.has('accept-encoding')) headers['Accept-Encoding'] = ACCEPT_ENCODING;
  const { username, password } = request.url;
  authorization ??= username || password ? `Basic ${Buffer.from(`${decodeURIComponent(username)}:${decodeURIComponent(password)}`).toString('base64')}` : undefined;
  if (authorization !== undefined && !given.has('authorization')) headers.Authorization = authorization;
  return { method: request.method, headers: Object.assign(headers, request.headers), body: request.body };
}

function withText(read: ReadExchange, body: Buffer, bodyTruncated: boolean): HttpExchange {
  const { status, headers, timings, certificate, httpVersion } = read;
  return { status, headers, body: body.toString('utf8'), bodyTruncated, timings, certificate, httpVersion };
}

/**
 * A TLS server that refuses every protocol ALPN offered says so by name (an alert, which node
 * reports as ERR_SSL_... on a read and as EPROTO on a write); the error says which and what to try.
 */
function refusedProtocol(err: unknown, version: HttpVersion): Error | undefined {
  if (!/alert no application protocol/.test((err as Error | undefined)?.message ?? '')) return undefined;
  if (version === '1.1') return new Error('the server refused HTTP/1.1 in the TLS handshake (ALPN): it may speak HTTP/2 only; try http_version "2" or "auto"');
  if (version === '2') return new Error('the server refused HTTP/2 in the TLS handshake (ALPN); try http_version "1.1" or "auto"');
  return new Error('the server refused both HTTP/2 and HTTP/1.1 in the TLS handshake (ALPN)');
}
