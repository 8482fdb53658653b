import { Page } from '../../ui/page';

export default function TeamsPage() {
  return (
    <Page title="Teams">
      <p>Coming in this issue.</p>
    </Page>
  );
}
