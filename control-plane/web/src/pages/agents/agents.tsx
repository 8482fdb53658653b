import { Page } from '../../ui/page';

export default function AgentsPage() {
  return (
    <Page title="Agents">
      <p>Coming in this issue.</p>
    </Page>
  );
}
