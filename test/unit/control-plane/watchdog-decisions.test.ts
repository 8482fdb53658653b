// The watchdog's decisions, pure: which agents fall silent now, whom their silence alerts
// (an agent alert, or one alert for a dark location), what resolves, and which services are
// stale and which no_data rules fire on them.
import { expect } from 'chai';
import type { Alert } from '../../../control-plane/src/features/alerting/alert.js';
import type { AlertRule } from '../../../control-plane/src/features/alerting/rule.js';
import type { Place, PresenceRules, Sighting } from '../../../control-plane/src/features/watchdog/sighting.js';
import { dueOffline, judgeAgents } from '../../../control-plane/src/features/watchdog/silent-agents.js';
import { judgeServices, staleAfterMs, type WatchedService } from '../../../control-plane/src/features/watchdog/stale-services.js';

const T = Date.parse('2025-03-01T12:00:00Z');
const at = (seconds: number) => new Date(T + seconds * 1000);
const rules: PresenceRules = { offlineMs: 60_000, notBefore: at(-3600) };

function sighting(agentId: string, fields: Partial<Sighting> = {}): Sighting {
  return { agentId, organizationId: null, name: agentId, location: 'eu', firstSeenAt: at(-3000), lastSeenAt: at(-100), offlineAt: null, live: false, ...fields };
}
function place(organizationId: string, fields: Partial<Place> = {}): Place {
  return { organizationId, location: 'eu', since: at(-2000), activeUntil: at(1000), ...fields };
}
function openAlert(fields: Partial<Alert>): Alert {
  return {
    id: 'alert', organizationId: 'org', kind: 'agent_offline', serviceId: null, serviceName: 'x', alertRuleId: null, agentId: null, location: 'eu', severity: 'critical',
    title: 't', message: 'm', status: 'firing', silencedBy: null, remindAt: null, firedAt: at(-50), lastFiredAt: at(-50), acknowledgedAt: null, acknowledgedBy: null,
    resolvedAt: null, resolvedBy: null, updatedAt: at(-50), ...fields,
  };
}
const declare = (s: Sighting) => Object.assign(s, { offlineAt: at(0) });
const plans = (open: ReturnType<typeof judgeAgents>['open']) => open.map((p) => (p.kind === 'agent_offline' ? `${p.organizationId} agent ${p.sighting.agentId}` : `${p.organizationId} location ${p.location}`));

describe('watchdog decisions', () => {
  describe('dueOffline', () => {
    it('declares an agent without a session once AGENT_OFFLINE_SECONDS have passed since it was last seen', () => {
      expect(dueOffline([sighting('a', { lastSeenAt: at(-61) })], at(0), rules).map((s) => s.agentId)).to.deep.equal(['a']);
      expect(dueOffline([sighting('a', { lastSeenAt: at(-59) })], at(0), rules)).to.deep.equal([]);
      expect(dueOffline([sighting('a', { lastSeenAt: at(-600), live: true })], at(0), rules), 'a session').to.deep.equal([]);
      expect(dueOffline([sighting('a', { lastSeenAt: at(-600), offlineAt: at(-500) })], at(0), rules), 'declared already').to.deep.equal([]);
    });

    it('gives every agent a full grace after the control plane starts', () => {
      expect(dueOffline([sighting('a', { lastSeenAt: at(-600) })], at(0), { ...rules, notBefore: at(-30) })).to.deep.equal([]);
    });

    it("waits while another agent of the location is within its grace, so that agents stopping together are judged together", () => {
      const first = sighting('a', { lastSeenAt: at(-61) });
      const second = sighting('b', { lastSeenAt: at(-59) });
      expect(dueOffline([first, second], at(0), rules)).to.deep.equal([]);
      expect(dueOffline([first, second, sighting('c', { location: 'us', lastSeenAt: at(-10) })], at(2), rules).map((s) => s.agentId)).to.deep.equal(['a', 'b']);
    });
  });

  describe('judgeAgents', () => {
    it("alerts the organizations whose services a platform agent could have checked, not one that came after it left or whose checks stopped before it came", () => {
      const silent = declare(sighting('a', { firstSeenAt: at(-3000), lastSeenAt: at(-100) }));
      const keeper = sighting('k', { live: true });
      const verdicts = judgeAgents({
        sightings: [silent, keeper],
        places: [place('served'), place('later', { since: at(-50) }), place('abandoned', { activeUntil: at(-4000) })],
        open: [], declared: [silent], now: at(0), rules,
      });
      expect(plans(verdicts.open)).to.deep.equal(['served agent a']);
    });

    it("opens one alert for a location whose every agent serving the organization is silent, per organization, instead of one per agent", () => {
      const [a, b] = [declare(sighting('a')), declare(sighting('b'))];
      const theirs = sighting('theirs', { organizationId: 'other', live: true });
      const verdicts = judgeAgents({ sightings: [a, b, theirs], places: [place('org'), place('other')], open: [], declared: [a, b], now: at(0), rules });
      expect(plans(verdicts.open), "another organization's own agent lights the location for it alone").to.deep.equal(['org location eu', 'other agent a', 'other agent b']);
      expect([...verdicts.dark]).to.deep.equal(['org eu']);
    });

    it('alerts a registered agent to its organization even where it has no services', () => {
      const own = declare(sighting('own', { organizationId: 'org' }));
      expect(plans(judgeAgents({ sightings: [own], places: [], open: [], declared: [own], now: at(0), rules }).open)).to.deep.equal(['org agent own']);
    });

    it('resolves an agent alert when the agent is back or forgotten, and a location alert when the location is lit, telling of the agents still silent there', () => {
      const back = sighting('back', { live: true, offlineAt: at(-30) });
      const still = sighting('still', { offlineAt: at(-30), lastSeenAt: at(-200) });
      const open = [
        openAlert({ id: 'back', agentId: 'back' }),
        openAlert({ id: 'forgotten', agentId: 'forgotten' }),
        openAlert({ id: 'still', agentId: 'still', organizationId: 'org2' }),
        openAlert({ id: 'location', kind: 'location_offline', agentId: null }),
      ];
      const verdicts = judgeAgents({ sightings: [back, still], places: [place('org'), place('org2')], open, declared: [], now: at(0), rules });
      expect(verdicts.resolve.map((a) => a.id)).to.deep.equal(['back', 'forgotten', 'location']);
      expect(plans(verdicts.open)).to.deep.equal(['org agent still']);
    });
  });

  describe('judgeServices', () => {
    const rule = (id: string, condition: AlertRule['condition'], fields: Partial<AlertRule> = {}): AlertRule => ({
      id, organizationId: 'org', serviceId: null, name: id, severity: 'warning', condition, enabled: true, createdAt: at(-9000), updatedAt: at(-9000), ...fields,
    });
    const watched = (id: string, fields: Partial<WatchedService> = {}): WatchedService => ({
      id, organizationId: 'org', name: id, endpoint: 'x', status: 'GREEN', tags: [], environment: null, locations: ['eu'], checkType: 'HTTP', checkIntervalSeconds: 30,
      lastResultAt: at(-100), createdAt: at(-1000), stale: false, dueAt: at(-10), alertedRules: [], ...fields,
    });
    const judge = (services: WatchedService[], ruleList: AlertRule[], extra: { dark?: string[]; maintenance?: string[] } = {}) =>
      judgeServices({ services, dark: new Set(extra.dark ?? []), rules: new Map([['org', ruleList]]), inMaintenance: (s) => (extra.maintenance ?? []).includes(s.id), now: at(0) });

    it('is stale after three intervals and at least 90 s', () => {
      expect([staleAfterMs(10), staleAfterMs(30), staleAfterMs(300)]).to.deep.equal([90_000, 90_000, 900_000]);
    });

    it('marks an overdue service stale and opens the no_data alert of each rule that covers it, once', () => {
      const rules_ = [rule('all', { no_data: true }), rule('tagged', { no_data: true, selector: { tags: ['db'] } }), rule('status only', {}), rule('off', { no_data: true }, { enabled: false })];
      const verdicts = judge([watched('s'), watched('alerted', { stale: true, alertedRules: ['all'] }), watched('fresh', { dueAt: at(10) })], rules_);
      expect(verdicts.markStale.map((s) => s.id)).to.deep.equal(['s']);
      expect(verdicts.noData.map((n) => `${n.service.id} ${n.rule.id}`)).to.deep.equal(['s all']);
    });

    it('marks the services of dark locations stale at once with no no_data alert, and holds no_data during maintenance', () => {
      const verdicts = judge(
        [watched('dark', { dueAt: at(100) }), watched('dark overdue'), watched('half dark', { locations: ['eu', 'us'], dueAt: at(100) }), watched('held', { locations: ['us'] })],
        [rule('all', { no_data: true })],
        { dark: ['org eu'], maintenance: ['held'] },
      );
      expect(verdicts.markStale.map((s) => s.id)).to.deep.equal(['dark', 'dark overdue', 'held']);
      expect(verdicts.noData).to.deep.equal([]);
    });
  });
});
