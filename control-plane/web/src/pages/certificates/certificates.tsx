import { Page } from '../../ui/page';

export default function CertificatesPage() {
  return (
    <Page title="SSL certificates">
      <p>Coming in this issue.</p>
    </Page>
  );
}
