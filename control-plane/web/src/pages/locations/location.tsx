import { Page } from '../../ui/page';

export default function LocationPage() {
  return (
    <Page title="Location">
      <p>Coming in this issue.</p>
    </Page>
  );
}
