// Serves the dashboard built by scripts/build-web.mjs from the API's origin. Files under
// /assets/ carry a content hash in their name and are cached for a year; every other path
// that is not the API's answers index.html, so client-side routes survive a reload.
import { createReadStream, existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
};

// The app talks only to its own origin (REST and the WebSocket feed); uPlot and React set
// styles through the CSSOM, which style-src does not govern, but the built CSS is inline-free.
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/** dist/web of this package, whether running from dist/ or from the TypeScript sources. */
export function defaultWebDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'web');
}

/** The status page a document request shows: a custom domain's (told to the app by a meta tag) or a public page's title. */
export type ShownPageLookup = (ctx: Context) => Promise<{ slug: string | null; title: string | null } | null>;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** index.html naming the status page it shows, so a custom domain's / renders that page and a page's tab carries its title. */
function documentFor(index: Buffer, shown: { slug: string | null; title: string | null }): string {
  let html = index.toString('utf8');
  if (shown.title) html = html.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(shown.title)}</title>`);
  if (shown.slug) html = html.replace('</head>', `  <meta name="outpost-status-page" content="${escapeHtml(shown.slug)}" />\n  </head>`);
  return html;
}

export function webApp(root: string, shownPage?: ShownPageLookup) {
  const rootWithSep = root.endsWith(sep) ? root : root + sep;
  let indexHtml: Buffer | undefined;

  const fileFor = async (path: string): Promise<string | undefined> => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    const resolved = normalize(join(root, decoded));
    // Build records (.vite/manifest.json, .source-hash) are not the app's to serve.
    if (!resolved.startsWith(rootWithSep) || resolved.slice(rootWithSep.length).split(sep).some((part) => part.startsWith('.'))) return undefined;
    const info = await stat(resolved).catch(() => undefined);
    return info?.isFile() ? resolved : undefined;
  };

  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path === '/api' || ctx.path.startsWith('/api/') || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);

    const file = ctx.path === '/' || ctx.path === '/index.html' ? undefined : await fileFor(ctx.path);
    if (file) {
      const immutable = ctx.path.startsWith('/assets/');
      ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
      ctx.vary('Accept-Encoding');
      const gzipped = ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? await fileFor(`${ctx.path}.gz`) : undefined;
      if (gzipped) ctx.set('Content-Encoding', 'gzip');
      const served = gzipped ?? file;
      ctx.length = (await stat(served)).size;
      ctx.body = ctx.method === 'HEAD' ? null : createReadStream(served);
      return;
    }
    if (ctx.path.startsWith('/assets/')) {
      ctx.status = 404;
      ctx.body = { error: 'no such file' };
      return;
    }
    indexHtml ??= await readFile(join(root, 'index.html')).catch(() => undefined);
    if (!indexHtml) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The dashboard is not built. Run `npm run build:web` (npm start does it when the build is missing or stale).\n';
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    const shown = await shownPage?.(ctx);
    ctx.body = shown ? documentFor(indexHtml, shown) : indexHtml;
  };
}
