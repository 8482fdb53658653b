// The small HTML pages a person sees after following a link of a subscriber mail. Self-contained
// (inline style, no script), escaped, and never cached or sent on as a referrer: the address
// holds the token.
import type { ParameterizedContext as Context } from 'koa';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface LinkPage {
  heading: string;
  message: string;
  /** A link back to the status page. */
  link?: { href: string; text: string };
}

export function renderLinkPage({ heading, message, link }: LinkPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(heading)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.5rem}a{color:#0969da}</style>
</head>
<body>
<main>
<h1>${escape(heading)}</h1>
<p>${escape(message)}</p>
${link ? `<p><a href="${escape(link.href)}">${escape(link.text)}</a></p>` : ''}
</main>
</body>
</html>
`;
}

export function sendLinkPage(ctx: Context, status: number, page: LinkPage): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  ctx.body = renderLinkPage(page);
}
