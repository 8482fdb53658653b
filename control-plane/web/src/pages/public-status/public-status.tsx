import { Page } from '../../ui/page';

export default function PublicStatusPage() {
  return (
    <Page title="Status">
      <p>Coming in this issue.</p>
    </Page>
  );
}
