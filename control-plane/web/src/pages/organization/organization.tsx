import { Page } from '../../ui/page';

export default function OrganizationPage() {
  return (
    <Page title="Organization">
      <p>Coming in this issue.</p>
    </Page>
  );
}
