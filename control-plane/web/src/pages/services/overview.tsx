import { Page } from '../../ui/page';

export default function ServicesOverviewPage() {
  return (
    <Page title="Services">
      <p>Coming in this issue.</p>
    </Page>
  );
}
