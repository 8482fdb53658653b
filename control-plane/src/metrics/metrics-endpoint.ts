// GET /metrics in the Prometheus text format, on the API port (a route outside /api/v1) or on
// a listen address of its own (METRICS_ADDR). With METRICS_TOKEN set, a scrape must present it
// as a bearer token (Prometheus: `authorization: {credentials: ...}`).
import Router from '@koa/router';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { HttpSettings } from '../config.js';
import { closeHttpServer, createHttpServer } from '../http/http-server.js';

export const METRICS_PATH = '/metrics';

interface Scrape {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const json = (status: number, body: object, headers: Record<string, string> = {}): Scrape => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

const UNAUTHENTICATED = json(401, { error: 'a valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)', code: 'UNAUTHENTICATED' }, { 'www-authenticate': 'Bearer realm="metrics"' });

/** Answers a scrape, whichever server received it. */
export function createScraper(registry: Registry, token: string | undefined) {
  // Comparing digests takes the same time whatever the length or the first differing byte.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  return async (authorization: string | undefined): Promise<Scrape> => {
    if (expected && !timingSafeEqual(digest(authorization ?? ''), expected)) return UNAUTHENTICATED;
    return { status: 200, headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' }, body: await registry.metrics() };
  };
}

export type Scraper = ReturnType<typeof createScraper>;

/** The route on the API's Koa app. */
export function metricsRoutes(scrape: Scraper): Router {
  const router = new Router();
  router.get(METRICS_PATH, async (ctx) => {
    const answer = await scrape(ctx.get('authorization') || undefined);
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body;
  });
  return router;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** /metrics alone on its own address, with the API's connection limits and timeouts. */
export async function startMetricsServer(scrape: Scraper, address: { host: string; port: number }, settings: HttpSettings): Promise<MetricsServer> {
  const server: Server = createHttpServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) return answer(res, json(404, { error: 'only /metrics is served here', code: 'NOT_FOUND' }));
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, json(405, { error: `method ${req.method} is not allowed on /metrics`, code: 'METHOD_NOT_ALLOWED' }, { allow: 'GET, HEAD' }));
    scrape(req.headers.authorization).then(
      (scraped) => answer(res, scraped, req.method === 'HEAD'),
      () => answer(res, json(500, { error: 'internal error' })),
    );
  }, settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeHttpServer(server),
  };
}

function answer(res: ServerResponse, { status, headers, body }: Scrape, headOnly = false): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(headOnly ? undefined : body);
}
