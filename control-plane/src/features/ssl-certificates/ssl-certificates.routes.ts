import type Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { CheckEnqueued } from '../services/services.schema.js';
import { CreateSslCertificateInput, SslCertificateJson, toSslCertificateJson, UpdateSslCertificateInput } from './ssl-certificates.schema.js';
import type { SslCertificatesService } from './ssl-certificates.service.js';

const SslCertificateIdParam = z.uuid({ message: 'ssl certificate id must be a UUID' });

const resource = { prefix: '/ssl-certificates', what: 'ssl certificate', listQuery: NoQuery, createInput: CreateSslCertificateInput, updateInput: UpdateSslCertificateInput };

export const sslCertificatesOperations: ApiOperation[] = [
  ...crudOperations({ ...resource, tag: 'SSL certificates', item: SslCertificateJson }),
  { method: 'post', path: '/ssl-certificates/:id/check', tag: 'SSL certificates', summary: 'Check a certificate now', params: { id: SslCertificateIdParam }, responses: { 202: CheckEnqueued } },
];

export function sslCertificatesRoutes(certificates: SslCertificatesService): Router {
  const router = crudRoutes({ ...resource, service: certificates, toJson: toSslCertificateJson });
  router.post('/:id/check', async (ctx) => {
    await certificates.checkNow(actorOf(ctx), parseInput(SslCertificateIdParam, ctx.params.id, 'ssl certificate id'));
    ctx.status = 202;
    ctx.body = { status: 'check enqueued' };
  });
  return router;
}
