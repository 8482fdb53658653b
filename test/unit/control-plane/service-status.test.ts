import { expect } from 'chai';
import type { ServiceStatus } from '../../../shared/src/status.js';
import { applyResult as apply, hasMoved, type FlapSettings, type ResultFacts, type ServiceState } from '../../../control-plane/src/features/checks/service-status.js';

function state(fields: Partial<ServiceState> = {}): ServiceState {
  return {
    organizationId: 'org', name: 'api', endpoint: 'http://x/', status: null, locations: ['a'], minFailingLocations: 1, byLocation: new Map(),
    lastCheckedAt: null, lastResponseTimeMs: null, redStreak: 0, failureStreak: 0, greenStreak: 0, flapping: false, statusChanges: [], movedLocations: new Set(), ...fields,
  };
}

const FLAP: FlapSettings = { changes: 6, windowMs: 30 * 60_000 };
const applyResult = (s: ServiceState, r: ResultFacts, flap = FLAP) => apply(s, r, flap);

let clock = Date.parse('2026-11-23T10:00:00Z');
const result = (status: ServiceStatus, location = 'a', checkedAt = new Date((clock += 1000))) => ({ status, location, checkedAt, responseTimeMs: 42 });

describe('service status rule', () => {
  it('follows a single location and counts RED and failure streaks', () => {
    const s = state();
    const steps = (['RED', 'RED', 'YELLOW', 'GREEN'] as const).map((status) => applyResult(s, result(status)));
    expect(steps.map((x) => [x.previousStatus, x.serviceStatus, x.redStreak, x.failureStreak])).to.deep.equal([
      [null, 'RED', 1, 1],
      ['RED', 'RED', 2, 2],
      ['RED', 'YELLOW', 0, 3],
      ['YELLOW', 'GREEN', 0, 0],
    ]);
    expect(s.status).to.equal('GREEN');
    expect(hasMoved(s)).to.equal(true);
  });

  it('turns RED only when min_failing_locations of the locations are RED, YELLOW when as many fail otherwise', () => {
    const s = state({ locations: ['a', 'b', 'c'], minFailingLocations: 2 });
    expect(applyResult(s, result('GREEN', 'a')).serviceStatus).to.equal('GREEN');
    expect(applyResult(s, result('RED', 'b')).serviceStatus).to.equal('GREEN');
    const yellow = applyResult(s, result('YELLOW', 'c'));
    expect([yellow.serviceStatus, yellow.failingLocations]).to.deep.equal(['YELLOW', 2]);
    const red = applyResult(s, result('RED', 'a'));
    expect([red.serviceStatus, red.failingLocations, red.redStreak]).to.deep.equal(['RED', 3, 1]);
  });

  it('needs no more failing locations than the service has results from', () => {
    const s = state({ locations: ['a', 'b', 'c'], minFailingLocations: 3 });
    expect(applyResult(s, result('RED', 'a')).serviceStatus).to.equal('RED');
  });

  it('stores a late result without letting it move the status, streaks or the location', () => {
    const s = state();
    const now = new Date(clock + 60_000);
    applyResult(s, result('GREEN', 'a', now));
    s.movedLocations.clear();
    const late = applyResult(s, result('RED', 'a', new Date(now.getTime() - 30_000)));
    expect([late.current, late.previousStatus, late.serviceStatus, late.redStreak]).to.deep.equal([false, null, 'GREEN', 0]);
    expect(s.byLocation.get('a')!.status).to.equal('GREEN');
    expect(hasMoved(s)).to.equal(false);
  });

  it('counts a location the service is no longer checked from only for its own result', () => {
    const s = state({ locations: ['a'], byLocation: new Map([['old', { status: 'RED', checkedAt: new Date(0), responseTimeMs: null }]]) });
    expect(applyResult(s, result('GREEN', 'a')).serviceStatus).to.equal('GREEN');
    expect(applyResult(s, result('RED', 'gone')).serviceStatus).to.equal('RED');
  });

  it('counts consecutive GREEN results for recovery thresholds', () => {
    const s = state();
    const streaks = (['RED', 'GREEN', 'GREEN', 'YELLOW', 'GREEN'] as const).map((status) => applyResult(s, result(status)).greenStreak);
    expect(streaks).to.deep.equal([0, 1, 2, 0, 1]);
  });

  it('flaps after more status changes than allowed within the window, and settles after a window with at most one', () => {
    const s = state();
    const flap = { changes: 3, windowMs: 60_000 };
    const at = (seconds: number) => new Date(Date.parse('2026-11-23T12:00:00Z') + seconds * 1000);
    const steps = (['GREEN', 'RED', 'GREEN', 'RED', 'GREEN'] as const).map((status, i) => applyResult(s, result(status, 'a', at(i * 5)), flap));
    expect(steps.map((x) => [x.flapping, x.startedFlapping])).to.deep.equal([[false, false], [false, false], [false, false], [false, false], [true, true]]);
    // Still flapping while the window holds more than one change, even without a new change.
    expect(applyResult(s, result('GREEN', 'a', at(30)), flap).flapping).to.equal(true);
    const settled = applyResult(s, result('GREEN', 'a', at(90)), flap);
    expect([settled.flapping, settled.startedFlapping]).to.deep.equal([false, false]);
    expect(s.statusChanges.length).to.be.at.most(1);
  });

  it('keeps no more status changes than it needs to decide', () => {
    const s = state();
    const flap = { changes: 2, windowMs: 3_600_000 };
    for (let i = 0; i < 20; i++) applyResult(s, result(i % 2 ? 'RED' : 'GREEN'), flap);
    expect(s.statusChanges).to.have.length(3);
  });
});
