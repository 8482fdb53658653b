import { expect } from 'chai';
import type { ServiceStatus } from '../../../shared/src/status.js';
import { decideAlerts, dependedOnLeavingRed } from '../../../control-plane/src/features/alerting/alert-decisions.js';
import type { AlertRule, RuleCondition } from '../../../control-plane/src/features/alerting/rule.js';
import type { StoredResult } from '../../../control-plane/src/features/checks/check-result.js';

const rule = (id: string, condition: RuleCondition = {}, serviceId: string | null = null): AlertRule => ({
  id, organizationId: 'org', serviceId, name: id, severity: 'critical', condition, enabled: true, createdAt: new Date(0), updatedAt: new Date(0),
});

let n = 0;
function stored(serviceId: string, serviceStatus: ServiceStatus, fields: Partial<StoredResult> = {}): StoredResult {
  n += 1;
  return {
    id: `r${n}`, serviceId, status: serviceStatus, responseTimeMs: 10, message: '', location: 'a', agentId: 'agent', checkedAt: new Date(n * 1000), adHoc: false,
    details: {}, organizationId: 'org', serviceName: serviceId, serviceEndpoint: 'http://x/', serviceAlerting: false, serviceHasDependents: true, current: true, previousStatus: null, serviceStatus,
    failingLocations: serviceStatus === 'GREEN' ? 0 : 1, redStreak: serviceStatus === 'RED' ? 1 : 0, failureStreak: serviceStatus === 'GREEN' ? 0 : 1,
    greenStreak: serviceStatus === 'GREEN' ? 1 : 0, flapping: false, startedFlapping: false, serviceWasStale: false,
    service: { id: serviceId, tags: [], environment: null, locations: ['a'], checkType: 'HTTP' }, ...fields,
  };
}

describe('alert decisions', () => {
  it('opens one candidate per rule and service, from the first matching result', () => {
    const first = stored('s1', 'RED');
    const decided = decideAlerts([rule('any'), rule('only-s2', {}, 's2')], [first, stored('s1', 'RED'), stored('s2', 'YELLOW')]);
    expect(decided.candidates.map((c) => [c.rule.id, c.result.serviceId])).to.deep.equal([['any', 's1'], ['any', 's2'], ['only-s2', 's2']]);
    expect(decided.candidates[0]!.result).to.equal(first);
    expect(decided.recovered).to.deep.equal([]);
  });

  it('waits for the streak a rule asks for', () => {
    const rules = [rule('three', { consecutive_failures: 3, statuses: ['RED'] })];
    expect(decideAlerts(rules, [stored('s1', 'RED', { redStreak: 2 })]).candidates).to.have.length(0);
    expect(decideAlerts(rules, [stored('s1', 'RED', { redStreak: 3 })]).candidates).to.have.length(1);
  });

  it('recovers a service back to GREEN that had an alert open or opened one in the batch, and no other', () => {
    const decided = decideAlerts(
      [rule('any')],
      [
        stored('s1', 'RED'), stored('s1', 'GREEN', { previousStatus: 'RED' }),
        stored('s2', 'GREEN', { previousStatus: 'RED', serviceAlerting: true }),
        stored('s3', 'GREEN', { previousStatus: 'RED' }),
      ],
    );
    expect(decided.recovered.map((r) => r.serviceId)).to.deep.equal(['s1', 's2']);
    expect(decided.latest.get('s1')!.serviceStatus).to.equal('GREEN');
  });

  it('does not recover a GREEN service that a latency rule still matches', () => {
    const rules = [rule('slow', { response_time_ms_above: 500 })];
    const decided = decideAlerts(rules, [stored('s1', 'GREEN', { serviceAlerting: true, responseTimeMs: 900 }), stored('s2', 'GREEN', { serviceAlerting: true })]);
    expect(decided.candidates.map((c) => c.result.serviceId)).to.deep.equal(['s1']);
    expect(decided.recovered.map((r) => r.serviceId)).to.deep.equal(['s2']);
  });

  describe('dependedOnLeavingRed', () => {
    it('names services RED before the batch and not after it, whatever happened between', () => {
      const left = dependedOnLeavingRed([
        stored('s1', 'YELLOW', { previousStatus: 'RED' }),
        stored('s2', 'GREEN', { previousStatus: 'RED' }), stored('s2', 'RED', { previousStatus: 'GREEN' }),
        stored('s3', 'RED', { previousStatus: 'GREEN' }), stored('s3', 'GREEN', { previousStatus: 'RED' }),
        stored('s4', 'GREEN', { previousStatus: 'RED' }), stored('s4', 'RED', { previousStatus: 'GREEN' }), stored('s4', 'GREEN', { previousStatus: 'RED' }),
      ]);
      expect(left).to.deep.equal(['s1', 's4']);
    });

    it('ignores late results, which move nothing', () => {
      expect(dependedOnLeavingRed([stored('s1', 'GREEN', { previousStatus: null, current: false })])).to.deep.equal([]);
    });

    it('leaves out services nothing depends on', () => {
      expect(dependedOnLeavingRed([stored('s1', 'GREEN', { previousStatus: 'RED', serviceHasDependents: false })])).to.deep.equal([]);
    });
  });
});
