import { expect } from 'chai';
import { ruleCovers, ruleMatches, statusesOf, type AlertRule, type RuleCondition } from '../../../control-plane/src/features/alerting/rule.js';
import { matcherOf, ServiceSelectorSchema, type SelectableService } from '../../../control-plane/src/features/services/service-selector.js';

const service = (fields: Partial<SelectableService> = {}): SelectableService => ({
  id: '7d3c2a51-8f0e-4e1b-9a55-0c6b1f2e3d4a', tags: ['payments', 'eu'], environment: 'production', locations: ['paris', 'frankfurt'], checkType: 'HTTP', ...fields,
});

const rule = (condition: RuleCondition, serviceId: string | null = null): AlertRule => ({
  id: 'r', organizationId: 'org', serviceId, name: 'r', severity: 'critical', condition, enabled: true, createdAt: new Date(0), updatedAt: new Date(0),
});

describe('service selectors', () => {
  it('needs every matcher to hold: all tags, the environment, any location, any check type', () => {
    const s = service();
    expect(matcherOf({ tags: ['payments'], environment: 'production' })(s)).to.equal(true);
    expect(matcherOf({ tags: ['payments', 'us'] })(s)).to.equal(false);
    expect(matcherOf({ environment: 'staging' })(s)).to.equal(false);
    expect(matcherOf({ locations: ['tokyo', 'paris'] })(s)).to.equal(true);
    expect(matcherOf({ check_types: ['TCP'] })(s)).to.equal(false);
    expect(matcherOf({ service_ids: [s.id], check_types: ['HTTP', 'TCP'] })(s)).to.equal(true);
  });

  it('refuses an empty selector and names a bad matcher', () => {
    expect(ServiceSelectorSchema.safeParse({}).success).to.equal(false);
    const bad = ServiceSelectorSchema.safeParse({ check_types: ['NOPE'] });
    expect(bad.success).to.equal(false);
    expect(bad.error!.issues[0]!.path).to.deep.equal(['check_types', 0]);
    expect(ServiceSelectorSchema.safeParse({ colour: 'red' }).success).to.equal(false);
  });
});

describe('rules by selector', () => {
  const red = { serviceId: service().id, service: service(), serviceStatus: 'RED' as const, failingLocations: 1, responseTimeMs: 10, redStreak: 1, failureStreak: 1 };

  it('covers the services its selector picks, one service, or all', () => {
    expect(ruleCovers(rule({ selector: { tags: ['payments'] } }), service())).to.equal(true);
    expect(ruleCovers(rule({ selector: { tags: ['search'] } }), service())).to.equal(false);
    expect(ruleCovers(rule({}, 'another'), service())).to.equal(false);
    expect(ruleCovers(rule({}), service())).to.equal(true);
    expect(ruleMatches(rule({ selector: { environment: 'production' } }), red)).to.equal(true);
    expect(ruleMatches(rule({ selector: { environment: 'staging' } }), red)).to.equal(false);
  });

  it('fires on statuses only when asked, for a rule about missing data or silent agents', () => {
    expect(statusesOf({})).to.deep.equal(['RED', 'YELLOW']);
    expect(statusesOf({ no_data: true })).to.deep.equal([]);
    expect(statusesOf({ agent_offline: true, statuses: ['RED'] })).to.deep.equal(['RED']);
    expect(ruleMatches(rule({ no_data: true }), red)).to.equal(false);
    expect(ruleMatches(rule({ no_data: true, statuses: ['RED'] }), red)).to.equal(true);
  });
});
