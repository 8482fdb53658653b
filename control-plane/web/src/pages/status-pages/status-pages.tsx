import { Page } from '../../ui/page';

export default function StatusPagesPage() {
  return (
    <Page title="Status pages">
      <p>Coming in this issue.</p>
    </Page>
  );
}
