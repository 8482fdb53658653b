import { Page } from '../../ui/page';

export default function MaintenancePage() {
  return (
    <Page title="Maintenance windows">
      <p>Coming in this issue.</p>
    </Page>
  );
}
