import { useNavigate, useParams } from 'react-router';
import { LoadError, Loading, Page } from '../../ui/page';
import { valuesOf } from './form-values';
import { useService } from './service-api';
import { ServiceForm } from './service-form';

export default function ServiceEditPage() {
  const { id } = useParams();
  const navigate = useNavigate();
  const service = useService(id);
  const back = () => navigate(`/services/${id}`);
  return (
    <Page title={service.data ? `Edit ${service.data.name}` : 'Edit service'}>
      {service.isPending && <Loading what="the service" />}
      {service.isError && <LoadError error={service.error} retry={() => void service.refetch()} />}
      {/* Keyed by id so the form starts from this service's values, not a previous one's. */}
      {service.data && <ServiceForm key={service.data.id} initial={valuesOf(service.data)} service={service.data} onSaved={back} onCancel={back} />}
    </Page>
  );
}
