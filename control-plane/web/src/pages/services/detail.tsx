import { Page } from '../../ui/page';

export default function ServiceDetailPage() {
  return (
    <Page title="Service">
      <p>Coming in this issue.</p>
    </Page>
  );
}
