import { useNavigate } from 'react-router';
import { Page } from '../../ui/page';
import { EMPTY_FORM } from './form-values';
import { ServiceForm } from './service-form';

export default function ServiceCreatePage() {
  const navigate = useNavigate();
  return (
    <Page title="New service">
      <ServiceForm initial={EMPTY_FORM} onSaved={(service) => navigate(`/services/${service.id}`)} onCancel={() => navigate('/services')} />
    </Page>
  );
}
