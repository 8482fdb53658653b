import { Page } from '../../ui/page';

export default function ChannelsPage() {
  return (
    <Page title="Notification channels">
      <p>Coming in this issue.</p>
    </Page>
  );
}
