import { Page } from '../../ui/page';

export default function HeartbeatsPage() {
  return (
    <Page title="Heartbeats">
      <p>Coming in this issue.</p>
    </Page>
  );
}
