import { Page } from '../../ui/page';

export default function AlertRulesPage() {
  return (
    <Page title="Alert rules">
      <p>Coming in this issue.</p>
    </Page>
  );
}
