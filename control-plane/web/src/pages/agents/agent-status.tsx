import type { Agent } from './agent-types';

/** Online/offline as words, with the status colours as a second cue. */
export function AgentStatus({ status }: { status: Agent['status'] }) {
  return (
    <span className={`status ${status === 'online' ? 'status-green' : 'status-pending'}`}>
      <span className="status-dot" aria-hidden="true" />
      {status}
    </span>
  );
}
