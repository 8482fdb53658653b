// Shown once after an agent is created or its token rotated: the token and the exact
// commands that install and start an agent with it, as the control plane answered them (its
// PUBLIC_GRPC_ADDRESS, or this host and its gRPC port). The address can be edited here for
// agents that reach the control plane some other way.
import { useState } from 'react';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import type { AgentWithToken } from './agent-types';

function agentCommands(agent: AgentWithToken, server: string) {
  const { install_commands: answered } = agent;
  const withServer = (commands: string[]) => commands.map((c) => c.replace(`--server ${answered.server}`, `--server ${server}`)).join('\n');
  return [
    {
      label: 'From the Debian package',
      hint: 'On the agent host, beside outpost-agent_<version>_amd64.deb (built with npm run build:agent): installs it with its own Node.js, stores the token and starts the service.',
      copy: 'Copy package commands',
      command: withServer(answered.deb),
    },
    {
      label: 'Or from an Outpost checkout',
      hint: 'In a checkout on the agent host: builds it and installs a systemd service that runs it.',
      copy: 'Copy checkout commands',
      command: withServer(answered.checkout),
    },
  ];
}

export function AgentTokenDialog({ agent, rotated, onClose }: { agent: AgentWithToken | null; rotated: boolean; onClose(): void }) {
  const [edited, setEdited] = useState<{ agentId: string; server: string } | null>(null);
  const server = agent && edited?.agentId === agent.id ? edited.server : (agent?.install_commands.server ?? '');
  return (
    <Dialog title={rotated ? `New token for ${agent?.name ?? 'agent'}` : `Agent ${agent?.name ?? ''} created`} open={agent !== null} onClose={onClose} wide>
      {agent && (
        <>
          <p className="notice" role="status">
            Copy the token now: it is shown only once.
            {rotated && ' The previous token keeps working until you revoke it; running the install command again gives the agent the new one.'}
          </p>
          <TextField label="Token" className="agent-secret" readOnly value={agent.token} onFocus={(e) => e.target.select()} />
          <CopyButton text={agent.token} label="Copy token" />
          <TextField
            label="Control plane gRPC address"
            value={server}
            onChange={(e) => setEdited({ agentId: agent.id, server: e.target.value.trim() })}
            hint="Where agents reach this control plane's gRPC port (PUBLIC_GRPC_ADDRESS sets it for everyone); change it if this agent reaches it at another address."
          />
          <p>Run these on a host inside the network to watch (location {agent.location}):</p>
          {agentCommands(agent, server).map(({ label, hint, copy, command }) => (
            <div key={label} className="agent-command">
              <h3>{label}</h3>
              <p className="hint">{hint}</p>
              <pre>
                <code>{command}</code>
              </pre>
              <CopyButton text={command} label={copy} />
            </div>
          ))}
          <p className="hint">
            The agent dials out over TLS with the system trust store; add <code>--ca FILE</code> for a private CA. Plaintext is used only to a loopback address or with{' '}
            <code>--insecure</code>, which the commands include while the control plane's gRPC port has no TLS.
          </p>
          <div className="actions">
            <button type="button" className="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
