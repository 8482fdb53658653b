// Notification channels: where alerts are sent. Members and above create, edit, test and
// delete them; everyone reads them with secrets masked.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/http';
import { useDeleteResource, useResourceList } from '../../api/resources';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { ChannelForm } from './channel-form';
import { TYPE_NAME, type Channel } from './channel-types';
import { PROVIDER_NAME } from './channel-providers';
import './channels.css';

export default function ChannelsPage() {
  const { canWrite } = useSession();
  const channels = useResourceList<Channel>('/notification-channels');
  const remove = useDeleteResource('/notification-channels');
  const [editing, setEditing] = useState<Channel | 'new' | null>(null);

  return (
    <Page
      title="Notification channels"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create channel</CreateButton>}
    >
      <QueryState query={channels} what="notification channels" empty={<>No notification channel yet. {canWrite ? 'Create one (chat, webhook, pager, email or SMS) so alerts reach you.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'Type', 'Sends to', 'Enabled']} actions={canWrite}>
            {data.map((channel) => (
              <tr key={channel.id}>
                <th scope="row">{channel.name}</th>
                <td>{TYPE_NAME[channel.channel_type] ?? channel.channel_type}</td>
                <td className="channel-config">{configSummary(channel)}</td>
                <td>{channel.enabled ? 'Enabled' : 'Disabled'}</td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={channel.name} what={`channel "${channel.name}"`} onEdit={() => setEditing(channel)} onDelete={() => remove.mutateAsync(channel.id)}>
                      <SendTestButton channel={channel} />
                    </EditDeleteActions>
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create notification channel' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)}>
        {editing !== null && <ChannelForm channel={editing === 'new' ? undefined : editing} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function SendTestButton({ channel }: { channel: Channel }) {
  const test = useMutation({ mutationFn: () => api.post(`/notification-channels/${channel.id}/test`) });
  return (
    <span className="send-test">
      <button type="button" disabled={test.isPending} onClick={() => test.mutate()} aria-label={`Send test to ${channel.name}`}>
        Send test
      </button>
      <span role="status" className={test.isError ? 'field-error' : 'muted'}>
        {test.isSuccess ? 'Test message sent' : test.isError ? test.error.message : ''}
      </span>
    </span>
  );
}

/** What a channel sends to, without the parts that work as a password (chat URLs' paths). */
function configSummary(channel: Channel): string {
  const c = channel.config;
  const origin = (value: unknown) => {
    try {
      return new URL(String(value)).origin;
    } catch {
      return String(value ?? '');
    }
  };
  switch (channel.channel_type) {
    case 'chat': {
      const via = c.provider ? `${PROVIDER_NAME[String(c.provider)] ?? String(c.provider)}: ` : '';
      if (c.webhook_url) return `${via}${origin(c.webhook_url)}/…`;
      if (c.chat_id !== undefined) return `${via}chat ${String(c.chat_id)}`;
      if (c.topic) return `${via}${origin(c.server_url)}/${String(c.topic)}`;
      if (c.server_url) return `${via}${origin(c.server_url)}`;
      return `${via}user ${String(c.user ?? '')}`;
    }
    case 'webhook': {
      const headers = c.headers && typeof c.headers === 'object' ? Object.keys(c.headers) : [];
      return [
        `${String(c.method ?? 'POST')} ${String(c.url ?? '')}`,
        headers.length ? `headers: ${headers.join(', ')}` : '',
        c.secret ? `signed (secret ${String(c.secret)})` : '',
      ].filter(Boolean).join('; ');
    }
    case 'pager':
      return c.provider === 'opsgenie' ? `Opsgenie: API key ${String(c.api_key ?? '')}` : `PagerDuty: integration key ${String(c.integration_key ?? '')}`;
    default:
      return String(c.to ?? '');
  }
}
