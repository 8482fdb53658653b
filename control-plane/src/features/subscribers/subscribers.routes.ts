// Public: POST /status-pages/{slug}/subscribe, and the confirm and unsubscribe links of the
// mails (a small HTML page each; unsubscribe also takes RFC 8058's one-click POST). Admins and
// owners: list, export as CSV and remove the subscribers of a page.
import Router from '@koa/router';
import type { RouterContext as Context } from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { idParam, type ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { AppError } from '../../errors.js';
import { SlugParam } from '../status-pages/status-pages.schema.js';
import { visitorOf } from '../status-pages/visitor.js';
import { LinkQuery, SubscribeAnswer, SubscribeInput, SubscriberIdParam, SubscriberJson, toSubscriberJson } from './subscribers.schema.js';
import type { SubscribersService } from './subscribers.service.js';
import type { PageRef } from './subscribers.repository.js';
import { sendLinkPage, type LinkPage } from './subscription-pages.js';

const tag = 'Status page subscribers';
const html = { file: 'text/html' } as const;
const pageId = { id: idParam('status page') };
const LINK_ANSWERS = { 200: html, 400: html };

export const subscribersOperations: ApiOperation[] = [
  {
    method: 'post', path: '/status-pages/:slug/subscribe', tag, summary: 'Subscribe an e-mail address or a webhook to a status page', public: true,
    description:
      'An e-mail address gets a confirmation mail and hears nothing until its link is followed; a webhook (whose address must be public unless the server allows private ones) is active at once. ' +
      'The answer is the same whether or not the address was subscribed already. Limited per client address and per e-mail address (429). Only a page the visitor may see can be subscribed to.',
    params: { slug: SlugParam }, body: SubscribeInput, responses: { 202: SubscribeAnswer }, errors: [401, 429],
  },
  {
    method: 'get', path: '/subscriptions/confirm', tag, summary: 'Confirm an e-mail subscription (the link of the confirmation mail)', public: true,
    description: 'Answers a small HTML page; a forged, expired (7 days) or stale link a 400 page.', query: LinkQuery, responses: LINK_ANSWERS,
  },
  {
    method: 'get', path: '/subscriptions/unsubscribe', tag, summary: 'Unsubscribe (the link of every subscriber mail and webhook)', public: true,
    description: 'Removes the subscriber at once and answers a small HTML page, also when it was gone already; a forged link is a 400 page.', query: LinkQuery, responses: LINK_ANSWERS,
  },
  {
    method: 'post', path: '/subscriptions/unsubscribe', tag, summary: 'Unsubscribe in one click (RFC 8058 List-Unsubscribe-Post)', public: true,
    description: 'What a mail client sends for List-Unsubscribe=One-Click; its form body is not read.', query: LinkQuery, responses: LINK_ANSWERS,
  },
  { method: 'get', path: '/status-pages/:id/subscribers', tag, summary: "List a status page's subscribers (admins and owners)", params: pageId, responses: { 200: z.array(SubscriberJson) } },
  { method: 'get', path: '/status-pages/:id/subscribers.csv', tag, summary: "Export a status page's subscribers as CSV (admins and owners)", params: pageId, responses: { 200: { file: 'text/csv' } } },
  {
    method: 'delete', path: '/status-pages/:id/subscribers/:subscriber_id', tag, summary: 'Remove a subscriber (admins and owners)',
    params: { ...pageId, subscriber_id: SubscriberIdParam }, responses: { 204: null },
  },
];

const pageLink = (page: PageRef) => ({ href: `/status/${encodeURIComponent(page.slug)}`, text: `Back to ${page.title}` });

/** Answers a mail link with its page; a bad or stale token with a 400 page saying why. */
async function answerLink(ctx: Context, follow: (token: string) => Promise<LinkPage>): Promise<void> {
  // Link checkers probe with HEAD: that changes nothing.
  if (ctx.method === 'HEAD') return sendLinkPage(ctx, 200, { heading: 'Subscription link', message: 'Open this link in a browser.' });
  const query = LinkQuery.safeParse(ctx.query);
  try {
    if (!query.success) throw new AppError('VALIDATION_FAILED', 'this link is not valid: it has no token');
    sendLinkPage(ctx, 200, await follow(query.data.token));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
    sendLinkPage(ctx, 400, { heading: 'This link does not work', message: `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.` });
  }
}

export function publicSubscriptionRoutes(subscribers: SubscribersService): Router {
  const router = new Router();
  router.post('/status-pages/:slug/subscribe', async (ctx) => {
    const slug = parseInput(SlugParam, ctx.params.slug, 'slug').toLowerCase();
    const input = parseInput(SubscribeInput, ctx.request.body);
    ctx.status = 202;
    ctx.body = { message: await subscribers.subscribe(slug, visitorOf(ctx), input) };
  });
  router.get('/subscriptions/confirm', (ctx) =>
    answerLink(ctx, async (token) => {
      const page = await subscribers.confirm(token);
      return { heading: 'Subscription confirmed', message: `You will get a mail when ${page.title} has an incident or announces maintenance.`, link: pageLink(page) };
    }),
  );
  const unsubscribe = (ctx: Context) =>
    answerLink(ctx, async (token) => {
      const page = await subscribers.unsubscribe(token);
      return page
        ? { heading: 'You are unsubscribed', message: `You will get no more updates of ${page.title}.`, link: pageLink(page) }
        : { heading: 'You are unsubscribed', message: 'You will get no more updates of this status page.' };
    });
  router.get('/subscriptions/unsubscribe', unsubscribe);
  router.post('/subscriptions/unsubscribe', unsubscribe);
  return router;
}

export function subscribersRoutes(subscribers: SubscribersService): Router {
  const router = new Router({ prefix: '/status-pages/:id' });
  const pageOf = (ctx: Context) => parseInput(pageId.id, ctx.params.id, 'status page id');
  router.get('/subscribers', async (ctx) => {
    ctx.body = (await subscribers.list(actorOf(ctx), pageOf(ctx))).map(toSubscriberJson);
  });
  router.get('/subscribers.csv', async (ctx) => {
    const { filename, csv } = await subscribers.exportCsv(actorOf(ctx), pageOf(ctx));
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(filename);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = csv;
  });
  router.delete('/subscribers/:subscriber_id', async (ctx) => {
    const id = pageOf(ctx);
    await subscribers.remove(actorOf(ctx), id, parseInput(SubscriberIdParam, ctx.params.subscriber_id, 'subscriber id'));
    ctx.status = 204;
  });
  return router;
}
