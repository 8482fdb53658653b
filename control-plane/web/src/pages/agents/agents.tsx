// Every agent of the organization with where it checks from and whether it is connected.
// Admins and owners register agents (token shown once), rotate tokens and revoke agents.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import { useOrg, useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { AgentStatus } from './agent-status';
import { AgentTokenDialog } from './agent-token-dialog';
import { AGENT_REFRESH_MS, type Agent, type AgentWithToken } from './agent-types';
import './agents.css';
import { FormActions } from '../../ui/form-actions';

export default function AgentsPage() {
  const { canManage } = useSession();
  const agents = useResourceList<Agent>('/agents', undefined, { refetchInterval: AGENT_REFRESH_MS });
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ agent: AgentWithToken; rotated: boolean } | null>(null);

  return (
    <Page
      title="Agents"
      actions={canManage && <CreateButton onClick={() => setCreating(true)}>Create agent</CreateButton>}
    >
      <p className="muted">
        Agents run inside your networks and check the services of their location. The location <Link to="/locations/local">local</Link> is the agent built into the
        control plane.
      </p>
      <QueryState query={agents} what="agents" empty={<>No agents yet.{canManage && ' Create one to check services from inside another network.'}</>}>
        {(data) => (
          <AgentTable agents={data} canManage={canManage} onToken={(agent) => setShown({ agent, rotated: true })} />
        )}
      </QueryState>
      <CreateAgentDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(agent) => {
          setCreating(false);
          setShown({ agent, rotated: false });
        }}
      />
      <AgentTokenDialog agent={shown?.agent ?? null} rotated={shown?.rotated ?? false} onClose={() => setShown(null)} />
    </Page>
  );
}

function AgentTable({ agents, canManage, onToken }: { agents: Agent[]; canManage: boolean; onToken(agent: AgentWithToken): void }) {
  return (
    <ListTable columns={['Name', 'Location', 'Status', 'Version', 'Hostname', 'Last seen']} actions={canManage}>
      {agents.map((agent) => (
        <tr key={agent.id}>
          <td>{agent.name}</td>
          <td>
            <Link to={`/locations/${encodeURIComponent(agent.location)}`}>{agent.location}</Link>
          </td>
          <td>
            <AgentStatus status={agent.status} />
          </td>
          <td>{agent.version ?? '—'}</td>
          <td>{agent.hostname ?? '—'}</td>
          <td title={formatDateTime(agent.last_seen_at)}>{formatAgo(agent.last_seen_at)}</td>
          {canManage && (
            <td>
              <AgentActions agent={agent} onToken={onToken} />
            </td>
          )}
        </tr>
      ))}
    </ListTable>
  );
}

function AgentActions({ agent, onToken }: { agent: Agent; onToken(agent: AgentWithToken): void }) {
  const org = useOrg();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.resource(org, '/agents') });
  const rotate = useMutation({
    mutationFn: () => api.post<AgentWithToken>(`/agents/${agent.id}/token`),
    onSuccess: (answer) => {
      onToken(answer);
      void refresh();
    },
  });
  const revokePrevious = useMutation({ mutationFn: () => api.del(`/agents/${agent.id}/previous-token`), onSuccess: refresh });
  const remove = useDeleteResource('/agents');
  const error = rotate.error ?? revokePrevious.error;
  return (
    <div className="row-actions">
      <button type="button" disabled={rotate.isPending} onClick={() => rotate.mutate()} aria-label={`Rotate token of ${agent.name}`}>
        Rotate token
      </button>
      {agent.previous_token_active && (
        <button type="button" disabled={revokePrevious.isPending} onClick={() => revokePrevious.mutate()} aria-label={`Revoke previous token of ${agent.name}`}>
          Revoke previous token
        </button>
      )}
      <DeleteButton what={`agent "${agent.name}"`} onDelete={() => remove.mutateAsync(agent.id)} />
      {error && (
        <span className="field-error" role="alert">
          {error.message}
        </span>
      )}
    </div>
  );
}

function CreateAgentDialog({ open, onClose, onCreated }: { open: boolean; onClose(): void; onCreated(agent: AgentWithToken): void }) {
  const save = useSaveResource<AgentWithToken>('/agents');
  const [name, setName] = useState('');
  const [location, setLocation] = useState('');
  const errors = formErrors(save.error);

  const close = () => {
    save.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { body: { name, location } },
      {
        onSuccess: (agent) => {
          setName('');
          setLocation('');
          save.reset();
          onCreated(agent);
        },
      },
    );
  };

  return (
    <Dialog title="Create agent" open={open} onClose={close}>
      <form onSubmit={submit} noValidate>
        <FormProblems messages={errors.summary(['name', 'location'])} />
        <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} />
        <TextField
          label="Location"
          required
          value={location}
          onChange={(e) => setLocation(e.target.value)}
          error={errors.field('location')}
          hint="Where it checks from, e.g. office-berlin: services that list this location are checked by its agents."
        />
        <FormActions onCancel={close} busy={save.isPending} submitLabel="Create" />
      </form>
    </Dialog>
  );
}
