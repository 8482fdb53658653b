import Router from '@koa/router';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { AgentJson, AgentWithTokenJson, CreateAgentInput, toAgentJson } from './agents.schema.js';
import type { AgentsService } from './agents.service.js';
import { agentGrpcAddress, installCommands, type AgentInstallSettings } from './install-commands.js';

const AgentId = z.uuid({ message: 'agent id must be a UUID' });
const id = { id: AgentId };
const tag = 'Agents';

export const agentsOperations: ApiOperation[] = [
  { method: 'get', path: '/agents', tag, summary: 'List agents', responses: { 200: z.array(AgentJson) } },
  { method: 'post', path: '/agents', tag, summary: 'Register an agent; its token is answered once', body: CreateAgentInput, responses: { 201: AgentWithTokenJson } },
  { method: 'get', path: '/agents/:id', tag, summary: 'Read an agent', params: id, responses: { 200: AgentJson } },
  {
    method: 'post', path: '/agents/:id/token', tag, summary: 'Rotate the token', params: id, responses: { 200: AgentWithTokenJson },
    description: 'The previous token keeps working until DELETE /agents/{id}/previous-token, so the agent can be updated without a gap.',
  },
  { method: 'delete', path: '/agents/:id/previous-token', tag, summary: 'Stop accepting the token before the last rotation', params: id, responses: { 200: AgentJson } },
  { method: 'delete', path: '/agents/:id', tag, summary: 'Remove an agent', params: id, responses: { 204: null } },
];

export function agentsRoutes(agents: AgentsService, clock: Clock, install: AgentInstallSettings): Router {
  const router = new Router({ prefix: '/agents' });
  const withToken = (ctx: { hostname: string }, agent: Parameters<typeof toAgentJson>[0], token: string) => ({
    ...toAgentJson(agent, clock.now()),
    token,
    install_commands: installCommands(agentGrpcAddress(install, ctx.hostname), { token, location: agent.location }, install.tls),
  });
  const idOf = (params: Record<string, string | undefined>) => parseInput(AgentId, params.id, 'agent id');

  router.get('/', async (ctx) => {
    ctx.body = (await agents.list(actorOf(ctx))).map((a) => toAgentJson(a, clock.now()));
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreateAgentInput, ctx.request.body);
    const { agent, token } = await agents.create(actorOf(ctx), input);
    ctx.status = 201;
    ctx.body = withToken(ctx, agent, token);
  });
  router.get('/:id', async (ctx) => {
    ctx.body = toAgentJson(await agents.get(actorOf(ctx), idOf(ctx.params)), clock.now());
  });
  router.post('/:id/token', async (ctx) => {
    const { agent, token } = await agents.rotateToken(actorOf(ctx), idOf(ctx.params));
    ctx.body = withToken(ctx, agent, token);
  });
  router.delete('/:id/previous-token', async (ctx) => {
    ctx.body = toAgentJson(await agents.revokePreviousToken(actorOf(ctx), idOf(ctx.params)), clock.now());
  });
  router.delete('/:id', async (ctx) => {
    await agents.remove(actorOf(ctx), idOf(ctx.params));
    ctx.status = 204;
  });
  return router;
}
