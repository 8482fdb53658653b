import { Page } from '../../ui/page';

export default function ServiceCreatePage() {
  return (
    <Page title="New service">
      <p>Coming in this issue.</p>
    </Page>
  );
}
