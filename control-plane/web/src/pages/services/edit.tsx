import { Page } from '../../ui/page';

export default function ServiceEditPage() {
  return (
    <Page title="Edit service">
      <p>Coming in this issue.</p>
    </Page>
  );
}
