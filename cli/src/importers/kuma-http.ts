// Uptime Kuma's HTTP monitors (http, keyword, json-query, and real-browser as far as a fetch
// goes) as HTTP and HTTPS services: method, headers, body with its encoding's Content-Type,
// accepted status codes, redirects, TLS, authentication, proxy, keyword and JSON query.
import type { CheckType } from '../../../shared/src/check-types.js';
import { isTrue, numberAt, parsedJson, text } from './kuma-data.js';
import { jsonQueryAssertion } from './kuma-json-query.js';
import { baseService, skip, type MonitorContext, type Obj, type Service } from './kuma-service.js';
import { variableName } from './import-report.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Header names whose values are credentials. */
export const SECRET_HEADER = /authorization|token|secret|api[-_]?key|password|cookie|session/i;
/** What Kuma sends a body as, by its encoding (json is its default). */
const CONTENT_TYPES: Record<string, string> = { json: 'application/json', xml: 'text/xml; charset=utf-8', form: 'application/x-www-form-urlencoded' };
const MAX_STATUS_ENTRIES = 50;

export function httpService(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, report } = ctx;
  const url = text(m.url)?.trim();
  const scheme = url ? /^(https?):\/\//i.exec(url)?.[1]?.toUpperCase() : undefined;
  if (!url || !scheme) return skip(report, where, `the URL ${url ?? '(none)'} is not http:// or https://`);
  if (isTrue(m.upside_down)) return skip(report, where, 'upside-down mode (UP when the check fails) has no Outpost equivalent');
  const service = baseService(ctx, scheme as CheckType, url);
  const o = service.options;
  const method = (text(m.method) ?? 'GET').toUpperCase();
  if (method !== 'GET') {
    if (METHODS.has(method)) o.method = method;
    else report.unmapped(where, `method ${method} is not one Outpost sends; GET used`);
  }
  headersAndBody(ctx, o);
  authentication(ctx, service);
  o.expected_status = expectedStatus(ctx);
  const redirects = numberAt(m.maxredirects) ?? 10;
  if (redirects === 0) o.follow_redirects = false;
  else if (redirects !== 10) report.unmapped(where, `max redirects ${redirects}: Outpost follows up to 10`);
  if (isTrue(m.ignore_tls)) o.verify_tls = false;
  proxy(ctx, o);
  if (m.type === 'keyword') {
    const keyword = text(m.keyword);
    if (keyword) o.keyword = keyword;
    if (keyword && isTrue(m.invert_keyword)) o.keyword_inverted = true;
  }
  if (m.type === 'json-query') jsonQuery(ctx, o);
  if (m.type === 'real-browser') report.unmapped(where, 'a real browser (Chromium) loads the page in Uptime Kuma; Outpost fetches it over HTTP and runs none of its scripts');
  if (isTrue(m.expiry_notification)) report.unmapped(where, 'certificate expiry notification: add an SSL certificate watch for the host (dashboard, or POST /api/v1/ssl-certificates)');
  if (isTrue(m.cache_bust)) report.unmapped(where, 'cache busting (a random query parameter) is not imported');
  return service;
}

function headersAndBody({ monitor: m, name, where, data, report }: MonitorContext, o: Obj): void {
  const headers: Record<string, string> = {};
  const given = parsedJson(m.headers);
  if (text(m.headers) && (typeof given !== 'object' || given === null || Array.isArray(given))) report.unmapped(where, 'headers: not a JSON object, not imported');
  for (const [header, raw] of Object.entries((given as Obj | undefined) ?? {})) {
    const value = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const bearer = /^bearer\s+(.+)$/i.exec(value);
    if (header.toLowerCase() === 'authorization' && bearer) o.bearer_token = report.secret(variableName(name, 'bearer token'), bearer[1]!, `the bearer token of monitor ${name}`);
    else if (SECRET_HEADER.test(header)) headers[header] = report.secret(variableName(name, header), value, `the ${header} header of monitor ${name}`);
    else headers[header] = value;
  }
  const body = text(m.body);
  const encoding = text(m.http_body_encoding) ?? 'json';
  if (body !== undefined && encoding === 'form' && data.major === 1) report.unmapped(where, 'body: Uptime Kuma 1.x sends no body with the form encoding, so neither does the import');
  else if (body !== undefined) {
    o.body = body;
    const contentType = CONTENT_TYPES[encoding];
    if (contentType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = contentType;
  }
  if (Object.keys(headers).length > 0) o.headers = headers;
}

function authentication({ monitor: m, name, where, report }: MonitorContext, service: Service): void {
  const o = service.options;
  const method = text(m.auth_method);
  const secret = (key: string, value: string, holds: string) => report.secret(variableName(name, key), value, `${holds} of monitor ${name}`);
  switch (method) {
    case 'basic': {
      // The agent sends a URL's user and password as Basic authentication.
      const user = text(m.basic_auth_user) ?? '';
      const password = text(m.basic_auth_pass);
      const credentials = `${encodeURIComponent(user)}${password ? `:${secret('password', password, 'the basic-auth password (URL-encoded: the agent decodes it)')}` : ''}@`;
      service.endpoint = service.endpoint.replace(/^(https?:\/\/)/i, `$1${credentials}`);
      return;
    }
    case 'bearer':
      if (text(m.bearer_token)) o.bearer_token = secret('bearer token', text(m.bearer_token)!, 'the bearer token');
      return;
    case 'oauth2-cc': {
      const scopes = (text(m.oauth_scopes) ?? '').split(/[\s,]+/).filter(Boolean);
      delete o.bearer_token;
      o.oauth2 = {
        token_url: text(m.oauth_token_url) ?? '',
        client_id: text(m.oauth_client_id) ?? '',
        ...(text(m.oauth_client_secret) ? { client_secret: secret('oauth2 client secret', text(m.oauth_client_secret)!, 'the OAuth2 client secret') } : {}),
        ...(scopes.length > 0 ? { scopes } : {}),
        ...(text(m.oauth_audience) ? { audience: text(m.oauth_audience) } : {}),
      };
      if (text(m.oauth_auth_method) === 'client_secret_post') report.unmapped(where, 'OAuth2 client_secret_post: the agent sends the client secret as HTTP Basic (client_secret_basic)');
      return;
    }
    case 'mtls':
      if (text(m.tls_cert) && text(m.tls_key)) {
        o.client_certificate = text(m.tls_cert);
        o.client_key = secret('client key', text(m.tls_key)!, 'the TLS client key (PEM)');
      }
      if (text(m.tls_ca)) o.ca_certificate = text(m.tls_ca);
      return;
    case 'ntlm':
      report.unmapped(where, 'NTLM authentication is not imported: Outpost has no NTLM client (the check will see the 401)');
      return;
    default:
      if (method) report.unmapped(where, `authentication ${method} is not imported`);
  }
}

/** Kuma's entries ("200-299", "301") as Outpost's: whole classes as "2xx", other ranges listed. */
function expectedStatus({ monitor: m, where, report }: MonitorContext): (number | string)[] {
  const out: (number | string)[] = [];
  for (const entry of m.accepted_statuscodes) {
    const range = /^(\d{3})-(\d{3})$/.exec(entry.trim());
    const single = /^\d{3}$/.test(entry.trim()) ? Number(entry) : undefined;
    if (single !== undefined) out.push(single);
    else if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      for (let code = Math.max(100, from); code <= Math.min(599, to); code++) {
        if (code % 100 === 0 && code + 99 <= to) {
          out.push(`${code / 100}xx`);
          code += 99;
        } else out.push(code);
      }
    } else report.unmapped(where, `accepted status code "${entry}" is not a code or a range; left out`);
  }
  const unique = [...new Set(out)];
  if (unique.length > MAX_STATUS_ENTRIES) {
    report.unmapped(where, `accepted status codes: more than ${MAX_STATUS_ENTRIES} entries once ranges are listed; 2xx used`);
    return ['2xx'];
  }
  return unique.length > 0 ? unique : ['2xx'];
}

function proxy({ monitor: m, name, where, data, report }: MonitorContext, o: Obj): void {
  const id = numberAt(m.proxy_id);
  if (id === undefined) return;
  const p = data.proxies.get(id);
  if (!p) {
    report.unmapped(where, data.complete ? `proxy ${id} is missing from the database; the check goes direct` : 'its proxy is not in a JSON backup; set options.proxy by hand');
    return;
  }
  if (!isTrue(p.active)) return;
  if (text(p.protocol) !== 'http') {
    report.unmapped(where, `a ${text(p.protocol)} proxy: Outpost reaches proxies in plain http://host:port; set options.proxy by hand`);
    return;
  }
  const user = isTrue(p.auth) && text(p.username) ? encodeURIComponent(text(p.username)!) : undefined;
  const password = user && text(p.password) ? `:${report.secret(variableName(name, 'proxy password'), text(p.password)!, `the proxy password (URL-encoded) of monitor ${name}`)}` : '';
  o.proxy = `http://${user ? `${user}${password}@` : ''}${text(p.host)}:${text(p.port)}`;
}

function jsonQuery({ monitor: m, where, data, report }: MonitorContext, o: Obj): void {
  const outcome = jsonQueryAssertion(text(m.json_path) ?? '$', data.major === 2 ? (text(m.json_path_operator) ?? '==') : '==', String(m.expected_value ?? ''));
  if (outcome.ok) o.assertions = [outcome.assertion];
  else report.unmapped(where, `JSON query not mapped: ${outcome.why}`);
}
