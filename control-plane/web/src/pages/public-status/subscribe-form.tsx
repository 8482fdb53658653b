// "Get updates": a visitor subscribes by e-mail (confirmed by a link in a mail) or webhook,
// to the whole page or to some of its services; the API answers the same whether or not the
// address was subscribed already, and that answer is what the visitor reads.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CheckboxField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { Disclosure } from '../../ui/disclosure';
import { subscribe, type SubscribeBody } from './public-api';
import type { PublicService } from './public-types';

export function SubscribeForm({ slug, services }: { slug: string; services: PublicService[] }) {
  const [by, setBy] = useState<'email' | 'webhook'>('email');
  const [address, setAddress] = useState('');
  const [components, setComponents] = useState<string[]>([]);
  const send = useMutation({ mutationFn: (body: SubscribeBody) => subscribe(slug, body) });
  const errors = formErrors(send.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const chosen = components.length > 0 ? { component_ids: components } : {};
    send.mutate(by === 'email' ? { email: address, ...chosen } : { webhook_url: address, ...chosen });
  };
  const toggle = (id: string, on: boolean) => setComponents((ids) => (on ? [...ids, id] : ids.filter((i) => i !== id)));

  return (
    <section className="public-subscribe" aria-labelledby="public-subscribe-title">
      <h2 id="public-subscribe-title">Get updates</h2>
      <form onSubmit={submit} noValidate>
        <FormProblems messages={send.isError ? errors.summary(['email', 'webhook_url']) : []} />
        <div className="public-subscribe-by" role="radiogroup" aria-label="Subscribe by">
          <CheckboxField type="radio" name="subscribe-by" label="E-mail" checked={by === 'email'} onChange={() => setBy('email')} />
          <CheckboxField type="radio" name="subscribe-by" label="Webhook" checked={by === 'webhook'} onChange={() => setBy('webhook')} />
        </div>
        <div className="public-subscribe-row">
          {by === 'email' ? (
            <TextField label="Email address" type="email" autoComplete="email" value={address} onChange={(e) => setAddress(e.target.value)} error={errors.field('email')} required />
          ) : (
            <TextField label="Webhook URL" type="url" placeholder="https://" value={address} onChange={(e) => setAddress(e.target.value)} error={errors.field('webhook_url')} required />
          )}
          <button type="submit" className="primary" disabled={send.isPending}>
            Subscribe
          </button>
        </div>
        {services.length > 1 && (
          <Disclosure title="Only some services" summary={components.length > 0 ? `${components.length} chosen` : 'All services'}>
            {services.map((s) => (
              <CheckboxField key={s.id} label={s.name} checked={components.includes(s.id)} onChange={(e) => toggle(s.id, e.target.checked)} />
            ))}
          </Disclosure>
        )}
        {send.isSuccess && (
          <p className="public-subscribe-answer" role="status">
            {send.data}
          </p>
        )}
      </form>
    </section>
  );
}
