// Shown once after an agent is created or its token rotated: the token and the exact
// commands that install and start an agent with it. The browser cannot know the control
// plane's gRPC address, so it starts from this host and the default port and can be edited.
import { useState } from 'react';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import type { AgentWithToken } from './agent-types';

const DEFAULT_GRPC_PORT = 9090;

function agentCommands(server: string, token: string, location: string) {
  const flags = `--server ${server} --token ${token} --location ${location}`;
  return [
    { label: 'Install and start it as a systemd service', copy: 'Copy install command', command: `sudo npm run agent -- install ${flags}` },
    { label: 'Or run it in the foreground', copy: 'Copy run command', command: `npm run agent -- run ${flags}` },
    { label: 'Or run the built agent directly', copy: 'Copy node command', command: `node dist/agent/src/cli.js run ${flags}` },
  ];
}

export function AgentTokenDialog({ agent, rotated, onClose }: { agent: AgentWithToken | null; rotated: boolean; onClose(): void }) {
  const [server, setServer] = useState(`${window.location.hostname}:${DEFAULT_GRPC_PORT}`);
  return (
    <Dialog title={rotated ? `New token for ${agent?.name ?? 'agent'}` : `Agent ${agent?.name ?? ''} created`} open={agent !== null} onClose={onClose} wide>
      {agent && (
        <>
          <p className="notice" role="status">
            Copy the token now: it is shown only once.
            {rotated && ' The previous token keeps working until you revoke it.'}
          </p>
          <TextField label="Token" className="agent-secret" readOnly value={agent.token} onFocus={(e) => e.target.select()} />
          <CopyButton text={agent.token} label="Copy token" />
          <TextField
            label="Control plane gRPC address"
            value={server}
            onChange={(e) => setServer(e.target.value.trim())}
            hint={`This host and the default gRPC port ${DEFAULT_GRPC_PORT}; change it if agents reach the control plane at another address or its GRPC_PORT differs.`}
          />
          <p>Run one of these in an Outpost checkout on a host inside the network to watch (location {agent.location}):</p>
          {agentCommands(server, agent.token, agent.location).map(({ label, copy, command }) => (
            <div key={label} className="agent-command">
              <h3>{label}</h3>
              <pre>
                <code>{command}</code>
              </pre>
              <CopyButton text={command} label={copy} />
            </div>
          ))}
          <p className="hint">
            The agent dials out over TLS with the system trust store; add <code>--ca FILE</code> for a private CA. Plaintext is used only to a loopback address or with{' '}
            <code>--insecure</code>.
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
