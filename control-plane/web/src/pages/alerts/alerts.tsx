import { Page } from '../../ui/page';

export default function AlertsPage() {
  return (
    <Page title="Alerts">
      <p>Coming in this issue.</p>
    </Page>
  );
}
