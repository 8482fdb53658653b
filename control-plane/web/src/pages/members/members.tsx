import { Page } from '../../ui/page';

export default function MembersPage() {
  return (
    <Page title="Members">
      <p>Coming in this issue.</p>
    </Page>
  );
}
