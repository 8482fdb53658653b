import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import { AppError } from '../../errors.js';
import { bearerActor } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { CredentialVerifier } from '../auth/credential-verifier.js';
import { ADMIN_TOKEN_HEADER } from './admin-token.js';
import { BackupRequest } from './backup.schema.js';
import type { BackupService } from './backup.service.js';

export const backupOperations: ApiOperation[] = [
  {
    method: 'post', path: '/backup', tag: 'Backup', summary: 'Download a backup of the whole installation',
    description:
      'Streams an archive of every table (one consistent snapshot) for `npm run admin -- restore`. Allowed to someone who owns every organization, ' +
      'or to `npm run admin -- backup` on the same host. The keys are not in it unless the admin command seals them in.',
    body: BackupRequest, bodyOptional: true,
    responses: { 200: { file: 'application/gzip' } },
    errors: [409],
  },
];

export function backupRoutes(backups: BackupService, verify: CredentialVerifier, isAdminToken: (token: string) => boolean): Router {
  const router = new Router();
  router.post('/backup', async (ctx) => {
    const admin = ctx.get(ADMIN_TOKEN_HEADER);
    if (!admin) await backups.assertMayDownload(await bearerActor(ctx, verify));
    else if (!isAdminToken(admin)) throw new AppError('UNAUTHENTICATED', 'the admin token is invalid or has expired');
    const input = parseInput(BackupRequest, ctx.request.body ?? {});
    const body = new PassThrough();
    const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-');
    // The first bytes are awaited before answering: a refusal (one backup at a time) is still a JSON error.
    const written = backups.write(body, { historyDays: input.history_days, keys: input.keys });
    const first = await Promise.race([written.then(() => 'done' as const), new Promise<'started'>((resolve) => body.once('readable', () => resolve('started')))]);
    if (first !== 'done') written.catch((err: unknown) => body.destroy(err as Error));
    ctx.attachment(`outpost-backup-${stamp}.ndjson.gz`);
    ctx.type = 'application/gzip';
    ctx.body = body;
  });
  return router;
}
