// GET /docs: the API reference, Swagger UI rendering /api/v1/openapi.json. Its files come
// from the swagger-ui-dist package on this machine (nothing from a CDN), and the page's own
// script is a file too, so the Content-Security-Policy needs no inline script.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context, Next } from 'koa';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outpost API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Groups start folded, with a filter box: expanded, Swagger UI stops rendering a document of
// this size after its first few groups (135 operations), and a reader wants one group anyway.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, docExpansion: 'none', filter: true });\n`;

/** The files of swagger-ui-dist the page loads; nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

// Swagger UI sets styles inline and shows its logo as a data: image.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export function docsPage() {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path !== '/docs' && !ctx.path.startsWith('/docs/')) return next();
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    const name = ctx.path.slice('/docs/'.length);
    if (ctx.path === '/docs' || name === '') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    } else if (name === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT;
    } else if (ASSETS[name]) {
      ctx.type = ASSETS[name];
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = createReadStream(join(dist, name));
    } else {
      ctx.status = 404;
      ctx.body = { error: 'no such file', code: 'NOT_FOUND' };
    }
  };
}
