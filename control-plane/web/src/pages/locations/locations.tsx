import { Page } from '../../ui/page';

export default function LocationsPage() {
  return (
    <Page title="Locations">
      <p>Coming in this issue.</p>
    </Page>
  );
}
