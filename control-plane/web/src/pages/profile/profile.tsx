import { Page } from '../../ui/page';

export default function ProfilePage() {
  return (
    <Page title="Profile">
      <p>Coming in this issue.</p>
    </Page>
  );
}
