import { Page } from '../../ui/page';

export default function EscalationPoliciesPage() {
  return (
    <Page title="Escalation policies">
      <p>Coming in this issue.</p>
    </Page>
  );
}
