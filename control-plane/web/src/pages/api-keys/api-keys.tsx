import { Page } from '../../ui/page';

export default function ApiKeysPage() {
  return (
    <Page title="API keys">
      <p>Coming in this issue.</p>
    </Page>
  );
}
