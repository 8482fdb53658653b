// "Try before saving" (POST /services/test): an unsaved service's check runs once on an online
// agent of a location that may serve the organization, and the agent's report is the answer.
// Nothing is stored: the report never reaches ingest, so no result row, status change, alert
// or event comes of it. The agent's stream may be held by another replica; the request then
// travels there over the cluster bus (cluster/test-run-relay.ts).
import { randomInt, randomUUID } from 'node:crypto';
import type { Assignment } from '../../../../shared/src/assignment.js';
import { reportedStatus, type ServiceStatus } from '../../../../shared/src/status.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { AppError, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { SecretResolver } from '../org-secrets/secret-resolver.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { TestServiceInput } from '../services/services.schema.js';
import { assertSealableSecrets, optionsForAgent, sealOptions } from '../secrets/secret-options.js';
import { validateCheck, validateOptions } from '../services/services.service.js';
import { servesOrganization, type AgentLocator } from './agent-sessions.js';

/** Beyond the check's own timeout, for the trip to the agent and back. */
const ANSWER_SLACK_MS = 5_000;

/** A saved service's organization and stored options (secrets sealed). */
export interface SavedOptions {
  organizationId: string;
  options: Record<string, unknown>;
}

/** What an agent reported for a test run. */
export interface TestRunReport {
  agentId: string;
  ok: boolean;
  degraded: boolean;
  speedJudged: boolean;
  responseTimeMs: number;
  message: string;
  details: Record<string, unknown>;
  checkedAtMs: number;
}

export type TestRunOutcome = { answered: true; report: TestRunReport } | { answered: false; reason: string };

/** A test run for the agent of one stream session. */
export interface TestRunRequest {
  sessionId: string;
  /** Checked again where the stream is held: the agent must serve it. */
  organizationId: string;
  assignment: Assignment;
  timeoutMs: number;
}

/** Runs a test on an agent whose stream this replica holds (the gateway). */
export type LocalTestRunner = (request: TestRunRequest) => Promise<TestRunOutcome>;
/** Runs a test through replica `replicaId`, which holds the agent's stream (the cluster relay). */
export type RemoteTestRunner = (replicaId: string, request: TestRunRequest) => Promise<TestRunOutcome>;

/** The answer to POST /services/test. */
export type TestRunAnswer =
  | { answered: true; status: ServiceStatus; responseTimeMs: number; message: string; details: Record<string, unknown>; location: string; agentId: string; checkedAt: Date }
  | { answered: false; reason: string };

export interface TestRunServiceDeps {
  access: OrganizationAccess;
  agents: AgentLocator;
  /** This replica's id: an agent whose stream it holds is asked directly. */
  replicaId: string;
  local: LocalTestRunner;
  remote: RemoteTestRunner;
  secrets: SecretBox;
  secretReferences: Pick<SecretResolver, 'resolveSecretReferences'>;
}

export function createTestRunService({ access, agents, replicaId, local, remote, secrets, secretReferences }: TestRunServiceDeps) {
  /**
   * The one place where an unsaved body's options become what the agent receives: sealed as
   * create stores them, opened as an assignment opens them (optionsForAgent), then with
   * {{secrets.NAME}} replaced as for an assignment (400 for a secret the organization lacks).
   * Opening the body as it came would hand out the secret behind a sealed value pasted into it;
   * this way that value reaches the agent as the text it is.
   */
  const optionsForTestRun = (organizationId: string, options: Record<string, unknown>, stored: Record<string, unknown>): Promise<Record<string, unknown>> => {
    // What saving would refuse, a test refuses too: the form's Test and Save agree.
    assertSealableSecrets(options);
    return secretReferences.resolveSecretReferences(organizationId, optionsForAgent(sealOptions(options, stored, secrets), secrets));
  };

  return {
    /** `saved`: the stored service the body edits (its access already checked), whose secrets fill the body's masks. */
    async run(actor: Actor, input: TestServiceInput, saved?: SavedOptions): Promise<TestRunAnswer> {
      // As for creating the service: a member or above of the organization, the same validation.
      const organizationId = saved ? saved.organizationId : await access.resolveWritable(actor, input.organization_id);
      if (saved && input.organization_id !== undefined && input.organization_id !== saved.organizationId) {
        throw validationFailed('organization_id is not the organization of service_id', [{ path: 'organization_id', message: "not the service's organization" }]);
      }
      validateCheck(input.check_type, input.endpoint);
      const options = await optionsForTestRun(organizationId, validateOptions(input.check_type, input.options), saved?.options ?? {});
      const location = input.location ?? input.locations[0]!;

      const candidates = (await agents.placed(location)).filter((agent) => servesOrganization(agent, organizationId));
      if (candidates.length === 0) throw new AppError('CONFLICT', `no agent online in location "${location}" may run checks for this organization`);
      // An agent whose stream this replica holds saves the trip over the bus.
      const here = candidates.filter((agent) => agent.replicaId === replicaId);
      const pool = here.length > 0 ? here : candidates;
      const agent = pool[randomInt(pool.length)]!;

      const assignment: Assignment = {
        // Not a stored service: a fresh id, and version 0, below every stored one.
        serviceId: randomUUID(),
        version: 0,
        checkType: input.check_type,
        endpoint: input.endpoint,
        intervalSeconds: input.check_interval_seconds,
        timeoutSeconds: input.timeout_seconds,
        options,
      };
      const request: TestRunRequest = { sessionId: agent.sessionId, organizationId, assignment, timeoutMs: input.timeout_seconds * 1000 + ANSWER_SLACK_MS };
      const outcome = agent.replicaId === replicaId ? await local(request) : await remote(agent.replicaId, request);
      if (!outcome.answered) return outcome;
      const { report } = outcome;
      return {
        answered: true,
        status: reportedStatus(report.ok, report.responseTimeMs, report.degraded, report.speedJudged),
        responseTimeMs: report.responseTimeMs,
        message: report.message,
        details: report.details,
        location,
        agentId: report.agentId,
        checkedAt: new Date(report.checkedAtMs),
      };
    },
  };
}

export type TestRunService = ReturnType<typeof createTestRunService>;
