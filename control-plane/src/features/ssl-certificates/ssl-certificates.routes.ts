import type Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { parseInput } from '../../http/validate.js';
import { CreateSslCertificateInput, toSslCertificateJson, UpdateSslCertificateInput } from './ssl-certificates.schema.js';
import type { SslCertificatesService } from './ssl-certificates.service.js';

const SslCertificateIdParam = z.uuid({ message: 'ssl certificate id must be a UUID' });

export function sslCertificatesRoutes(certificates: SslCertificatesService): Router {
  const router = crudRoutes({
    prefix: '/ssl-certificates',
    what: 'ssl certificate',
    service: certificates,
    listQuery: NoQuery,
    createInput: CreateSslCertificateInput,
    updateInput: UpdateSslCertificateInput,
    toJson: toSslCertificateJson,
  });
  router.post('/:id/check', async (ctx) => {
    await certificates.checkNow(actorOf(ctx), parseInput(SslCertificateIdParam, ctx.params.id, 'ssl certificate id'));
    ctx.status = 202;
    ctx.body = { status: 'check enqueued' };
  });
  return router;
}
